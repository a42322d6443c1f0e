"""Beat's heartbeat: the time of beat's last tick, kept in the cache (Redis in production) and read at scrape.

Beat is one process and nothing else notices when it stops: tickets stop being matched and sweeps stop running,
silently. A tiny task beat queues every second writes the time (``arena.tasks.beat_tick``);
``arena_beat_last_tick_timestamp_seconds`` exposes it, and the alert fires when it is 10 s old. The time is
written by the worker that runs the task, so the alert also covers "no worker takes the default queue".
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from django.core.cache import cache
from prometheus_client.core import Metric
from redis.exceptions import RedisError

from infra import metrics

KEY = "arena:beat:last_tick"


def beat_tick(*, now: float | None = None) -> None:
    """Record a tick (kept a day: an old value, not a missing one, is what tells a stopped beat)."""
    cache.set(KEY, now if now is not None else time.time(), timeout=86_400)


def last_tick() -> float:
    """Unix time of the last tick, 0 when none was ever recorded (the embedded mode has no beat)."""
    try:
        return float(cache.get(KEY) or 0.0)
    except RedisError:
        return 0.0


@metrics.scrape
def beat_gauges() -> Iterator[Metric]:
    yield metrics.gauge(
        "arena_beat_last_tick_timestamp_seconds",
        "Unix time of Celery beat's last heartbeat tick (0: never).",
        last_tick(),
    )
