"""Which database tests run on both backends, and which once (docs/testing.md, "The suite's passes").

The embedded pass (SQLite, tasks in-process) runs every test of ``tests/db``. The PostgreSQL + Redis pass, given
``--both-backends-only``, runs again only those where the two shapes can give different answers; the rest would
repeat on PostgreSQL what SQLite already proved. (``tests/security`` runs whole in both: its limits count in the
cache, which is Redis in one shape and process memory in the other.) A test differs by backend when:

1. it says so: ``@pytest.mark.both_backends`` on the test, its class or its module (``pytestmark``);
2. its module's name is about a subject whose code has a PostgreSQL path and a portable one: storage (``*store*``,
   ``*batch*``, ``*lock*``, ``*concurren*``), query counts and plans (``*quer*``), the rating stages' replays and
   rebuilds (``*rebuild*``, ``*replay*``, ``*economy*``, ``*history*``), the matchmaking passes (``*passes*``,
   ``*propert*``: random pools through the pass) and detection's bulk link writes (``*detection*``);
3. it asks for a fixture whose behaviour is the backend's: a real transaction (``transactional_db``, the live
   server) or a count of SQL statements;
4. its own source names the backend or the mode (``connection.vendor``, ``IS_POSTGRES``, ``REDIS_URL``, the eager
   task setting, ``select_for_update``, counted queries, threads);
5. it carries a conditional ``skipif`` or ``xfail``: a test skipped on one backend must run on the other.

Two marks choose the one pass of a test that would otherwise run in both, for what it is about, not for its cost
alone: ``@pytest.mark.embedded_pass`` (its subject is the development default: the README's tours, run as the
README runs them) stays out of the PostgreSQL pass; ``@pytest.mark.postgres_pass`` (its subject is the production
shape's contract: schemathesis against the served API) is left by the embedded pass to the PostgreSQL pass when
one follows (``--postgres-pass-follows``, given by ``scripts/test`` only when the services answer), so a checkout
without services still runs it, embedded.

The rules read names and source, never a list of files, so a new test falls into the right pass by what it does.
Pure: no Django import, so ``tests/pure/test_backend_split.py`` checks the rules without a database.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

MARK = "both_backends"
EMBEDDED_PASS = "embedded_pass"
POSTGRES_PASS = "postgres_pass"
SPLIT_DIRS = ("db",)  # under tests/: the directories whose tests the PostgreSQL pass may leave to SQLite
STORAGE_NAMES = re.compile(r"store|batch|lock|concurren|quer|rebuild|replay|economy|history|passes|propert|detection")
BACKEND_FIXTURES = frozenset(
    {
        "transactional_db",
        "live_server",
        "django_assert_num_queries",
        "django_assert_max_num_queries",
        "django_db_serialized_rollback",
    }
)
BACKEND_SOURCE = re.compile(
    r"\.vendor\b|IS_POSTGRES|REDIS_URL|redis_configured|CELERY_TASK_ALWAYS_EAGER|tasks_in_process"
    r"|select_for_update|CaptureQueriesContext|assertNumQueries|by_backend|threading|Thread\("
)
TESTS = Path(__file__).resolve().parent


def in_split(path: Path) -> bool:
    """True for a test file under one of the directories whose tests the PostgreSQL pass may leave to SQLite."""
    try:
        parts = path.resolve().relative_to(TESTS).parts
    except ValueError:
        return False
    return bool(parts) and parts[0] in SPLIT_DIRS


def conditional(marker: Any) -> bool:
    """A skipif/xfail with a condition (an argument or ``condition=``): it depends on the environment."""
    return marker.name in ("skipif", "xfail") and bool(marker.args or "condition" in marker.kwargs)


def source_of(function: Any) -> str:
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return ""


def differs(*, module_name: str, fixtures: list[str] | tuple[str, ...], markers: list[Any], source: str) -> bool:
    """The rules above, one test's facts in: its module's file name, its fixtures, its markers and its source."""
    return (
        any(m.name == MARK for m in markers)
        or bool(STORAGE_NAMES.search(module_name))
        or not BACKEND_FIXTURES.isdisjoint(fixtures)
        or bool(BACKEND_SOURCE.search(source))
        or any(conditional(m) for m in markers)
    )


def item_differs(item: Any) -> bool:
    """:func:`differs` for a collected pytest item."""
    return differs(
        module_name=Path(str(item.fspath)).name,
        fixtures=tuple(getattr(item, "fixturenames", ())),
        markers=list(item.iter_markers()),
        source=source_of(getattr(item, "function", None)),
    )
