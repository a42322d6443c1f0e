"""Shared fixtures: a game server with its key, an API client that sends it, and game-body builders."""

from __future__ import annotations

import ipaddress
import itertools
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

from arena.servers import game_server_create
from tests import migrated
from tests.backends import EMBEDDED_PASS, MARK, POSTGRES_PASS, in_split, item_differs

# scripts/mutmut runs tests/pure in an instrumented process on a busy machine: no timing health checks there
# (pyproject's [tool.mutmut] passes --hypothesis-profile=mutmut).
hypothesis_settings.register_profile("mutmut", deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Every run: no per-example deadline. A deadline is a timed test, and on this shared two-core machine a property
# that passed failed on a rerun-free 200 ms budget while other work ran; speed is the benches' job (docs/testing.md).
hypothesis_settings.register_profile("arena", deadline=None)
hypothesis_settings.load_profile("arena")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--both-backends-only",
        action="store_true",
        help="in tests/db, only the tests that differ by backend (tests/backends.py), and none marked embedded_pass: "
        "the PostgreSQL pass after an embedded pass ran them all (scripts/test)",
    )
    parser.addoption(
        "--postgres-pass-follows",
        action="store_true",
        help="leave the tests marked postgres_pass to the PostgreSQL pass that follows (scripts/test)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks the tests that differ by backend; with ``--both-backends-only`` leaves out the others of the split
    directories and those whose subject is the embedded default; with ``--postgres-pass-follows`` leaves out those
    whose one run belongs on PostgreSQL (docs/testing.md, "The suite's passes")."""
    dropped: list[pytest.Item] = []
    kept: list[pytest.Item] = []
    both_only, pg_follows = config.getoption("both_backends_only"), config.getoption("postgres_pass_follows")
    for item in items:
        split = in_split(item.path)
        if split and item_differs(item):
            item.add_marker(MARK)
        leave = (
            (both_only and split and not item.get_closest_marker(MARK))
            or (both_only and item.get_closest_marker(EMBEDDED_PASS) is not None)
            or (pg_follows and item.get_closest_marker(POSTGRES_PASS) is not None)
        )
        (dropped if leave else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """On PostgreSQL each test database is a copy of the one migrated template (tests/migrated.py) instead of a
    migration run of its own: Django's ``TEST["TEMPLATE"]``, after which its own ``migrate`` finds nothing to do."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("postgresql"):
        db.setdefault("TEST", {})["TEMPLATE"] = migrated.template(migrated.url_of(db))


_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def _outside(host: object) -> bool:
    """An address or a name that could reach past the loopback (a name other than localhost's needs a DNS query,
    which is itself a packet out)."""
    if host in (None, "", b"") or not isinstance(host, str | bytes):
        return False
    name = host.decode() if isinstance(host, bytes) else host
    try:
        address = ipaddress.ip_address(name.split("%")[0])
    except ValueError:
        return name.lower() not in _LOOPBACK_NAMES and not name.lower().endswith(".localhost")
    return not (address.is_loopback or address.is_unspecified)


@pytest.fixture(autouse=True, scope="session")
def _traffic_stays_on_this_machine() -> Iterator[None]:
    """Every test, whatever the code under it does, resolves and connects on the loopback only: a name or address
    beyond it is refused here before a packet leaves (a test that fakes a resolution patches over this, and the
    fake's answer is still refused at connect unless the test guards ``socket`` itself)."""
    real_getaddrinfo = socket.getaddrinfo
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def getaddrinfo(host, *args, **kwargs):
        if _outside(host):
            raise socket.gaierror(socket.EAI_NONAME, f"test guard: no resolution of {host!r} beyond the loopback")
        return real_getaddrinfo(host, *args, **kwargs)

    def refuse(address: object) -> None:
        if isinstance(address, tuple) and address and _outside(address[0]):
            raise ConnectionRefusedError(f"test guard: no connection to {address!r} beyond the loopback")

    def connect(self, address):
        refuse(address)
        return real_connect(self, address)

    def connect_ex(self, address):
        refuse(address)
        return real_connect_ex(self, address)

    socket.getaddrinfo = getaddrinfo
    socket.socket.connect, socket.socket.connect_ex = connect, connect_ex
    yield
    socket.getaddrinfo = real_getaddrinfo
    socket.socket.connect, socket.socket.connect_ex = real_connect, real_connect_ex


_table_ids = itertools.count(1)
_addresses = itertools.count(1)


@pytest.fixture
def embedded_tasks(settings):
    """Tasks run in-process at once, as the embedded mode runs them, whichever services the suite was given: a
    test that describes the embedded mode asks for it (the real workers have tests/services)."""
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = eager


@pytest.fixture
def embedded_mode(embedded_tasks, settings):
    """The whole embedded mode: tasks in-process and a matchmaking pass on each ticket request."""
    settings.MATCHMAKING_PASS_ON_REQUEST = True


@pytest.fixture
def empty_tokaido_board(settings) -> None:
    """No Tokaido board left in the test Redis by another test on the same xdist worker (the database is flushed
    between transactional tests, the Redis boards are not): the board is then rebuilt from this test's games."""
    if settings.REDIS_URL:
        from infra.redis import redis_client

        stale = redis_client().keys("lb:{tokaido}*")
        if stale:
            redis_client().delete(*stale)


@pytest.fixture
def server_key(db) -> tuple[Any, str]:
    issued = game_server_create(name=f"server-{next(_table_ids)}")
    return issued.server, issued.key


@pytest.fixture
def api(server_key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {server_key[1]}")
    return client


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


def player(name: str, score: int | None = None, ip: str | None = None, **extra: Any) -> dict[str, Any]:
    """A player entry; each call gets its own IPv6 /64 unless an ip is given, so no same-IP warning by chance."""
    body: dict[str, Any] = {"player": name, "ip": ip or f"2001:db8:{next(_addresses) % 65536:x}::1"}
    if score is not None:
        body["score"] = score
    body.update(extra)
    return body


def game_body(game: str, players: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"table_id": f"T-{next(_table_ids)}", "game": game, "players": players}
    body.update(extra)
    return body


@pytest.fixture
def make_game() -> Callable[..., dict[str, Any]]:
    return game_body
