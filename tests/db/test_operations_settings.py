"""The operations settings reach Celery and Django as named (a misspelled CELERY_* setting is silently ignored),
and the replica router keeps every write and every migration on the primary."""

from __future__ import annotations

from django.conf import settings

from config.celery import app
from infra.replica import ReplicaRouter, _on_replica
from matchmaking.models import Ticket


def test_the_sweeps_and_the_purge_are_on_beat_with_their_settings():
    # The tasks modules a worker loads (autodiscovery of every installed app), not only those imported so far.
    app.loader.import_default_modules()
    schedule = app.conf.beat_schedule
    assert schedule["sweep-void-rebuilds"] == {
        "task": "moderation.tasks.sweep_void_rebuilds",
        "schedule": settings.VOID_REBUILD_SWEEP_SECONDS,
    }
    assert schedule["sweep-lost-boards"] == {
        "task": "leaderboards.tasks.sweep_lost_boards",
        "schedule": settings.LEADERBOARD_SWEEP_SECONDS,
    }
    assert schedule["purge-closed-tickets"]["task"] == "matchmaking.tasks.purge_closed_tickets"
    for entry in schedule.values():
        assert entry["task"] in app.tasks, entry
    assert settings.MATCHMAKING_TICKET_RETENTION_DAYS == 30  # the default
    assert (settings.VOID_REBUILD_SWEEP_SECONDS, settings.VOID_REBUILD_OVERDUE_SECONDS) == (60.0, 120.0)


def test_the_router_reads_from_the_replica_only_inside_a_public_read():
    router = ReplicaRouter()
    assert router.db_for_read(Ticket) is None  # None: Django's default, the primary
    token = _on_replica.set(True)
    try:
        assert router.db_for_read(Ticket) == "replica"
        assert router.db_for_write(Ticket) == "default"  # a write inside a public read still goes to the primary
    finally:
        _on_replica.reset(token)
    assert router.allow_migrate("default", "arena") and not router.allow_migrate("replica", "arena")
