"""Builders for matchmaking tests: ticket bodies with an own IP per player unless told otherwise."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from rest_framework.test import APIClient

from arena.models import SCOPES
from arena.servers import game_server_create
from matchmaking import tasks

_REAL_RETRY_IN_PROCESS = tasks._retry_in_process

_addresses = itertools.count(1)
_servers = itertools.count(1)


def address() -> str:
    """An IPv6 address in its own /64, so no two players share an IP hash by chance."""
    return f"2001:db8:{next(_addresses) % 65536:x}::1"


def ticket_body(player: str, game: str = "tokaido", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"player": player, "game": game, "ip": extra.pop("ip", None) or address()}
    body.update(extra)
    return body


def another_server(scopes: tuple[str, ...] = SCOPES) -> APIClient:
    """A second game server's client; with every scope, as these tests set preferences beside their tickets."""
    issued = game_server_create(name=f"mm-server-{next(_servers)}", scopes=scopes)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {issued.key}")
    client.server = issued.server
    return client


@pytest.fixture
def server_key(db) -> tuple[Any, str]:
    """The shared fixture's server with ``preferences`` too: these tests play the account service as well."""
    issued = game_server_create(name=f"mm-main-{next(_servers)}", scopes=SCOPES)
    return issued.server, issued.key


@pytest.fixture
def other_api(db) -> APIClient:
    return another_server()


@pytest.fixture(autouse=True)
def _embedded_matchmaking(embedded_mode, settings, monkeypatch):
    """These tests describe the embedded mode (a pass on each request, pushes in-process), whichever database
    runs them; the real workers have their own test (tests/services/test_matchmaking_workers.py)."""
    settings.PUSH_ALLOW_PRIVATE_NETWORKS = True  # the receivers are on 127.0.0.1; the refusals' tests turn it off
    # The embedded retry timer writes from its own thread, and the test database is SQLite's shared in-memory one,
    # which refuses a second writer at once ("table is locked") where the embedded file database waits: these
    # tests drive retries by hand (the sweep) unless they ask for ``retry_timers``.
    monkeypatch.setattr(tasks, "_retry_in_process", lambda delivery_id, delay: None)
    yield
    tasks.retry_timers_cancel()  # an embedded push retry never fires into the next test


@pytest.fixture
def retry_timers(monkeypatch):
    """The embedded mode's own retry timers, as ``scripts/run`` has them (see ``_embedded_matchmaking``)."""
    monkeypatch.setattr(tasks, "_retry_in_process", _REAL_RETRY_IN_PROCESS)
