"""The one wake-up debounce: a ``SET NX`` marker per key while a worker has a wake-up to take.

Whether a marker is needed is a question of the mode (``infra.mode``): in-process there is no queue for a second
message to wait in, so every caller sends; with workers one ``SET NX`` per key lets the first message through and
coalesces the rest until the worker clears the marker. Used by the rating wake-ups, detection's wake-up and the
void sweep's re-queue.
"""

from __future__ import annotations

from infra.mode import tasks_in_process
from infra.redis import redis_client


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
