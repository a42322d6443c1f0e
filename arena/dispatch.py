"""The one place that knows which of Arena's two shapes is running (docs/architecture.md#one-place-knows-the-mode).

Embedded (no ``REDIS_URL``): there is no broker, so a task's ``.delay()`` runs in-process once the transaction
commits (``CELERY_TASK_ALWAYS_EAGER``); a matchmaking pass runs when a ticket is created or read
(``MATCHMAKING_PASS_ON_REQUEST``); leaderboards answer from the database. Scaled out: workers and beat do the work,
Redis holds the boards and the wake-up markers.

``config/settings.py`` derives those settings from the environment; every service and door asks the functions
here instead of testing a setting, so the mode is decided in one module (``tests/pure/test_one_place_knows_the_mode.py``
fails on any other reader). Two readers of ``REDIS_URL`` stay outside on purpose, because they are about
*connecting*, not about the mode: ``arena/redis.py`` needs the address to open its pool, and ``config/`` builds the
cache and broker from it. Both are reached only after a branch here said Redis is configured.

The wake-up debounce lives here too, because whether a marker is needed is a question of the mode: in-process
there is no queue for a second message to wait in, so every caller sends; with workers one ``SET NX`` per key lets
the first message through and coalesces the rest until the worker clears the marker.
"""
from __future__ import annotations

from django.conf import settings

from arena.redis import redis_client


def tasks_in_process() -> bool:
    """True when tasks run in this process after commit (embedded), False when workers take them from a queue."""
    return bool(settings.CELERY_TASK_ALWAYS_EAGER)


def pass_on_request() -> bool:
    """True when a ticket's create or read runs its pool's pass (docs/matchmaking.md: embedded has no beat)."""
    return bool(settings.MATCHMAKING_PASS_ON_REQUEST)


def redis_configured() -> bool:
    """True when Redis is part of this deployment (its boards, its markers, its readiness check)."""
    return bool(settings.REDIS_URL)


def wake_once(key: str, *, ttl: int) -> bool:
    """Whether the caller should send its wake-up now: always in-process, else only the first until ``wake_clear``.

    The marker expires after ``ttl`` seconds, so a worker that died holding it blocks wake-ups no longer than that
    (each caller's beat sweep covers the gap)."""
    if tasks_in_process():
        return True
    return bool(redis_client().set(key, 1, nx=True, ex=max(1, int(ttl))))


def wake_clear(key: str) -> None:
    """The worker took the wake-up: the next caller sends a new one (nothing to clear in-process)."""
    if not tasks_in_process():
        redis_client().delete(key)
