"""Public reads on a streaming replica, through a Django database router (DATABASE_REPLICA_URL, docs/scaling.md).

The public pages (a player's page, their history, the leaderboard when it answers from SQL) are most of the read
traffic and tolerate being a fraction of a second behind; a game server's reads of what it just recorded do not,
and every write must reach the primary. So the routing is by door, not by model: a view wrapped in ``on_replica``
reads from the ``replica`` alias for the length of its call, and everything else (game servers' doors, workers,
the panel, every write) stays on ``default``.

A replica that does not answer is left alone for ``DATABASE_REPLICA_RETRY_SECONDS`` and the primary answers those
reads meanwhile: the page is served, only slower for the primary. A read that fails on the replica mid-way is run
again on the primary (a read changes nothing, so running it twice is safe).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from functools import wraps
from typing import Any, TypeVar

from django.conf import settings
from django.db import DatabaseError, connections

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])

REPLICA = "replica"
_on_replica: ContextVar[bool] = ContextVar("arena_on_replica", default=False)
_down_until = 0.0
_lock = threading.Lock()


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


def _replica_usable() -> bool:
    return replica_configured() and time.monotonic() >= _down_until


def _mark_down(exc: BaseException) -> None:
    global _down_until
    with _lock:
        _down_until = time.monotonic() + settings.DATABASE_REPLICA_RETRY_SECONDS
    log.warning(
        "read replica unavailable (%s): the primary answers public reads for %.0f s",
        exc.__class__.__name__,
        settings.DATABASE_REPLICA_RETRY_SECONDS,
    )
    # A broken connection may fail to close in many ways; it is dropped either way.
    with contextlib.suppress(Exception):
        connections[REPLICA].close()


def _still_answers() -> bool:
    conn = connections[REPLICA]
    try:
        return conn.connection is not None and conn.is_usable()
    except Exception:
        return False


def _replica_answers() -> bool:
    """Connects (or checks the kept connection) once; a failure marks the replica down."""
    try:
        connections[REPLICA].ensure_connection()
        return True
    except DatabaseError as exc:
        _mark_down(exc)
        return False


def on_replica(func: F) -> F:
    """Runs a public read with its queries on the replica, or on the primary while the replica is down."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not _replica_usable() or not _replica_answers():
            return func(*args, **kwargs)
        token = _on_replica.set(True)
        try:
            return func(*args, **kwargs)
        except DatabaseError as exc:
            if _still_answers():
                raise  # the replica answers: the error is the query's own, not the replica's absence
            _mark_down(exc)
        finally:
            _on_replica.reset(token)
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


class ReplicaRouter:
    """DATABASE_ROUTERS entry: reads inside ``on_replica`` go to the replica; everything else to the primary."""

    def db_for_read(self, model: type, **hints: Any) -> str | None:
        return REPLICA if _on_replica.get() else None

    def db_for_write(self, model: type, **hints: Any) -> str:
        return "default"

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # the replica is a copy of the primary: the same rows on both

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == "default"  # a replica follows the primary's migrations through replication
