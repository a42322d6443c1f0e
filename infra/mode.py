"""The one place that knows which of Arena's two shapes is running (docs/architecture.md#one-place-knows-the-mode).

Embedded (no ``REDIS_URL``): there is no broker, so a task's ``.delay()`` runs in-process once the transaction
commits (``CELERY_TASK_ALWAYS_EAGER``); a matchmaking pass runs when a ticket is created or read
(``MATCHMAKING_PASS_ON_REQUEST``); leaderboards answer from the database. Scaled out: workers and beat do the work,
Redis holds the boards and the wake-up markers.

``config/sections/mode.py`` derives those settings from the environment; every service and door asks the functions
here instead of testing a setting, so the mode is decided in one module (``tests/pure/test_one_place_knows_the_mode.py``
fails on any other reader). Two readers of ``REDIS_URL`` stay outside on purpose, because they are about
*connecting*, not about the mode: ``infra/redis.py`` needs the address to open its pool, and ``config/`` builds the
cache and broker from it. Both are reached only after a branch here said Redis is configured.
"""

from __future__ import annotations

from django.conf import settings


def tasks_in_process() -> bool:
    """True when tasks run in this process after commit (embedded), False when workers take them from a queue."""
    return bool(settings.CELERY_TASK_ALWAYS_EAGER)


def pass_on_request() -> bool:
    """True when a ticket's create or read runs its pool's pass (docs/matchmaking.md: embedded has no beat)."""
    return bool(settings.MATCHMAKING_PASS_ON_REQUEST)


def redis_configured() -> bool:
    """True when Redis is part of this deployment (its boards, its markers, its readiness check)."""
    return bool(settings.REDIS_URL)
