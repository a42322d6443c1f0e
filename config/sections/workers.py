"""The cache, Celery and beat (docs/scaling.md): Redis where REDIS_URL is set, in-process otherwise."""

from config.sections.domain import (
    LEADERBOARD_SWEEP_SECONDS,
    MATCHMAKING_TICKET_PURGE_SECONDS,
    RATING_POPULATION_SECONDS,
    SEASON_ROLLOVER_SECONDS,
    VOID_REBUILD_SWEEP_SECONDS,
)
from config.sections.mode import REDIS_URL

# =============================================================================
# The cache and Celery
# =============================================================================
if REDIS_URL:
    # infra/cache.py: Django's Redis cache, one redis-py client per pool rather than one per operation.
    CACHES = {"default": {"BACKEND": "infra.cache.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 4
CELERY_TASK_DEFAULT_QUEUE = "arena"
# Elo is fast and ordered; TrueSkill is ~60x slower and must never hold it back: separate queues.
CELERY_TASK_ROUTES = {
    "ratings.tasks.rate_elo": {"queue": "elo"},
    "ratings.tasks.rate_trueskill": {"queue": "trueskill"},
    # Matchmaking passes are short and due every second; pushes wait on game servers: neither may queue behind
    # the other or behind rating batches.
    "matchmaking.tasks.run_due_pools": {"queue": "matchmaking"},
    "matchmaking.tasks.deliver_table": {"queue": "pushes"},
    # Detection scans many games at a time: its own worker, so it never delays a rating batch (Procfile).
    "moderation.tasks.detect": {"queue": "detection"},
}
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
# Every periodic job in one table; the apps' intervals are their settings (config/sections/domain.py).
CELERY_BEAT_SCHEDULE = {
    "sweep-pending-ratings": {"task": "ratings.tasks.sweep_pending", "schedule": 10.0},
    # Players whose last rated game turned 90 days old leave the Redis boards (reads also drop them at once).
    "prune-inactive-leaderboards": {"task": "leaderboards.tasks.prune_inactive", "schedule": 3600.0},
    # docs/matchmaking.md: a pass every second per pool; one task runs every pool that has tickets waiting.
    "matchmaking-passes": {"task": "matchmaking.tasks.run_due_pools", "schedule": 1.0, "options": {"expires": 5.0}},
    # Catches whatever the after-batch detection missed (a lost message, a worker restart): new games only.
    "detect-abuse": {"task": "moderation.tasks.detect", "schedule": 300.0},
    # Beat's heartbeat (infra/beat.py): the "no beat tick for 10 s" alert reads its time.
    "beat-heartbeat": {"task": "arena.tasks.beat_tick", "schedule": 1.0, "options": {"expires": 5.0}},
    # docs/moderation.md: a timed ban is lifted (an audited unban by the system) within a minute of its end.
    "lift-expired-bans": {"task": "moderation.tasks.lift_expired_bans", "schedule": 60.0},
    # Each title's active population (count, mean, median) into today's row (docs/ratings.md).
    "rating-population": {"task": "ratings.tasks.population_snapshot", "schedule": RATING_POPULATION_SECONDS},
    # Operations (docs/operations.md): sweeps of work recorded in the database, and the ticket history's purge.
    "sweep-void-rebuilds": {"task": "moderation.tasks.sweep_void_rebuilds", "schedule": VOID_REBUILD_SWEEP_SECONDS},
    "sweep-lost-boards": {"task": "leaderboards.tasks.sweep_lost_boards", "schedule": LEADERBOARD_SWEEP_SECONDS},
    "purge-closed-tickets": {
        "task": "matchmaking.tasks.purge_closed_tickets",
        "schedule": MATCHMAKING_TICKET_PURGE_SECONDS,
    },
    "season-rollover": {"task": "seasons.tasks.rollover_due", "schedule": SEASON_ROLLOVER_SECONDS},
    "tournaments-due": {"task": "tournaments.tasks.due", "schedule": 60.0},  # docs/tournaments.md
}
