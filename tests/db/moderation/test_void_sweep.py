"""A void whose rebuild message was lost (a killed worker had prefetched it) is found in the database and rebuilt
by the sweep, with the refund a replay without the game gives (worked by hand, as in test_penalties)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings

from arena.models import Game, Player
from moderation import tasks
from moderation.models import AuditEntry
from moderation.services import games_void, player_ban
from moderation.services.penalties import void_rebuilds_overdue
from ratings.models import Rating
from tests.db.moderation.helpers import duel, record

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not settings.CELERY_TASK_ALWAYS_EAGER, reason="embedded: the sweep runs in-process"),
]


def elo(a: float, b: float) -> float:
    return 1 / (1 + 10 ** ((b - a) / 400))


def rating(handle: str) -> float:
    return Rating.objects.get(player__handle=handle, title="tokaido").elo


def test_the_sweep_rebuilds_a_void_whose_message_was_lost(api, django_capture_on_commit_callbacks, settings):
    _, g2 = record(api, [duel("v", "w"), duel("cheat", "v")])
    player_ban(moderator=None, player=Player.objects.get(handle="cheat"), note="alt")
    with django_capture_on_commit_callbacks(execute=False) as lost:  # the rebuild's message never runs
        entry = games_void(moderator=None, games=[Game.objects.get(pk=g2["id"])], note="abuse")
    assert len(lost) == 2  # the rebuild's hand-off, and GamesVoided (tournaments re-score: docs/tournaments.md)
    # g1: v beats w, both new (K 60): v 1530. g2 (cheat beats v) cost v 60 * E(1530 vs 1500).
    v_before = 1530.0 - 60 * elo(1530.0, 1500.0)
    assert rating("v") == pytest.approx(v_before)

    # Not overdue yet: a rebuild queued a moment ago is still on its way.
    assert void_rebuilds_overdue(older_than=120) == []
    later = entry.created_at + timedelta(seconds=121)
    assert void_rebuilds_overdue(older_than=120, now=later) == [(entry.pk, "tokaido")]

    settings.VOID_REBUILD_OVERDUE_SECONDS = 0
    assert tasks.sweep_void_rebuilds() == 1
    assert rating("v") == pytest.approx(1530.0)  # the replay without g2: v's only game is g1
    entry.refresh_from_db()
    refund = {r["handle"]: r["delta"] for r in entry.details["refunds"]["tokaido"]}
    assert refund["v"] == pytest.approx(60 * elo(1530.0, 1500.0), abs=1e-6)
    assert entry.details["pending_titles"] == [] and "rebuilt_at" in entry.details
    # Done: nothing owed any more, the next sweep queues nothing.
    assert void_rebuilds_overdue(older_than=0) == [] and tasks.sweep_void_rebuilds() == 0


def test_only_void_entries_with_titles_pending_are_owed(api, settings):
    AuditEntry.objects.create(action=AuditEntry.Action.BAN, details={"pending_titles": ["tokaido"]})
    AuditEntry.objects.create(action=AuditEntry.Action.VOID_GAMES, details={"pending_titles": []})
    owed = AuditEntry.objects.create(
        action=AuditEntry.Action.VOID_GAMES, details={"pending_titles": ["nile", "wizard"], "refunds": {}}
    )
    assert void_rebuilds_overdue(older_than=0) == [(owed.pk, "nile"), (owed.pk, "wizard")]
