"""Raw PostgreSQL access for the few hot paths (recording games, rating batches), and transient-failure retries.

Why: a batch writes thousands of rows, and the ORM builds a model instance and one parameter per value; on
PostgreSQL a binary COPY, one ``INSERT ... SELECT FROM unnest(arrays)`` or one JSON document carries the same
rows in one statement. The cursor is server-binding on Django's own connection, so it runs inside Django's
transaction (Django's default client-side binding would render every array as a quoted literal, which costs
more than the write itself). Callers keep an ORM path for SQLite, the embedded mode, with the same meaning.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from django.db import DatabaseError, InterfaceError, OperationalError, connection

log = logging.getLogger(__name__)
T = TypeVar("T")

# deadlock_detected and serialization_failure: the database aborted the transaction to let another one through,
# and the same work run again a moment later succeeds.
TRANSIENT_SQLSTATES = frozenset({"40P01", "40001"})
RETRY_ATTEMPTS = 5
RETRY_PAUSE_SECONDS = 0.005


@functools.cache
def _cursor_class() -> type:
    """The psycopg cursor class, logging its statements while Django logs queries (DEBUG, or a test counting them):
    a hand-written statement then counts like any ORM query, and costs nothing extra otherwise."""
    import psycopg

    class LoggedCursor(psycopg.Cursor):
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            if not connection.queries_logged:
                return super().execute(query, params, **kwargs)
            started = time.monotonic()
            try:
                return super().execute(query, params, **kwargs)
            finally:
                connection.queries_log.append({"sql": str(query), "time": f"{time.monotonic() - started:.3f}"})

        def copy(self, statement: Any, *args: Any, **kwargs: Any) -> Any:
            if connection.queries_logged:
                connection.queries_log.append({"sql": str(statement), "time": "0.000"})
            return super().copy(statement, *args, **kwargs)

    return LoggedCursor


@contextmanager
def pg_cursor(*, binary: bool = True) -> Iterator[Any]:  # yields a psycopg.Cursor
    """A server-binding psycopg cursor on Django's connection (so inside Django's transaction).

    Binary by default (arrays and numbers travel without text conversion); ``binary=False`` for statements
    fed by one JSON document, which the server parses as text anyway.

    Driver errors come out as Django's (``django.db.IntegrityError`` ...), as from any ORM query, so callers
    handle one family of exceptions.
    """
    import psycopg

    connection.ensure_connection()
    with connection.wrap_database_errors, _cursor_class()(connection.connection) as cursor:
        if binary:
            cursor.format = psycopg.pq.Format.BINARY
        yield cursor


def _fetch_one_postgres(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    with pg_cursor(binary=False) as cursor:
        cursor.execute(sql, params)
        row: tuple[Any, ...] | None = cursor.fetchone()
        return row


def _fetch_one_portable(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row: tuple[Any, ...] | None = cursor.fetchone()
        return row


@functools.cache
def _fetch_one_backend() -> Callable[[str, Sequence[Any]], tuple[Any, ...] | None]:
    """Chosen once, at first use: the database a process talks to does not change while it runs."""
    return _fetch_one_postgres if connection.vendor == "postgresql" else _fetch_one_portable


def fetch_one(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    """One row of a hand-written query that runs on every request: on PostgreSQL through a server-binding
    cursor, so the connection prepares it once and later runs skip parsing and planning."""
    return _fetch_one_backend()(sql, params)


def columns(rows: Sequence[tuple[Any, ...]]) -> list[list[Any]]:
    """Rows to one list per column, the shape ``unnest(%b::type[], ...)`` takes."""
    return [list(column) for column in zip(*rows, strict=True)]


class StaleRead(DatabaseError):  # type: ignore[misc]  # Django has no type stubs: its classes are Any
    """A write kept finding the rows it had read changed underneath it: run the whole transaction again."""


def is_transient(error: BaseException) -> bool:
    """Whether running the same transaction again may well succeed: a deadlock victim, a serialization failure."""
    if isinstance(error, StaleRead):
        return True
    return isinstance(error, DatabaseError) and getattr(error.__cause__, "sqlstate", None) in TRANSIENT_SQLSTATES


# Connection loss (docs/observability.md#while-postgresql-is-down): libpq's own failures carry no SQLSTATE
# ("connection refused", "server closed the connection unexpectedly"); the server's say class 08 (connection
# exception) or 57P01-57P03 (shut down by an administrator, crash shutdown, "the database system is starting up").
CONNECTION_SQLSTATES = frozenset({"57P01", "57P02", "57P03"})


def connection_lost(error: BaseException) -> bool:
    """Whether the database itself could not be reached or went away, as opposed to refusing this statement:
    nothing was written, and the same request will work once the database is back (a 503, not a 500)."""
    if isinstance(error, InterfaceError):
        return True
    if not isinstance(error, OperationalError) or is_transient(error):
        return False
    cause = error.__cause__
    if not type(cause).__module__.startswith("psycopg"):
        return False  # SQLite (the embedded mode): a file, not a server that goes away; its errors are bugs
    sqlstate = getattr(cause, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith("08") or sqlstate in CONNECTION_SQLSTATES


def retry_transient(work: Callable[[], T], *, attempts: int = RETRY_ATTEMPTS, pause: float = RETRY_PAUSE_SECONDS) -> T:
    """Run ``work``, a whole transaction, again when the database aborted it for a transient reason.

    Why: under concurrent load PostgreSQL may pick a transaction as a deadlock victim even when no cycle is
    designed in (a moderator banning several players at once, say); the caller sent a valid request and must not
    get a 500. Bounded (``attempts``), with a random pause that doubles each time so two victims do not collide
    again in step. Inside a caller's transaction nothing can be retried here (the whole outer transaction is
    lost), so the error goes up to the caller, who owns the transaction.
    """
    if connection.in_atomic_block:
        return work()
    for attempt in range(1, attempts + 1):
        try:
            return work()
        except DatabaseError as error:
            if attempt == attempts or not is_transient(error):
                raise
            log.warning("transient database failure, attempt %d of %d: %s", attempt, attempts, error)
            time.sleep(random.uniform(0, pause * 2**attempt))
    raise AssertionError("unreachable")  # pragma: no cover
