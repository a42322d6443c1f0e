"""The Celery doors in embedded mode (tasks run in-process on commit); the real worker is in tests/services."""

from __future__ import annotations

import random
from unittest import mock

import pytest
from django.conf import settings

from arena.models import Game
from config.celery import app
from ratings import tasks
from ratings.lag import trueskill_lag
from ratings.models import Rating
from tests.db.ratings.bodies import random_bodies
from tests.db.ratings.helpers import post
from tests.db.ratings.replay import Replay, assert_matches

# Committed transactions, so on-commit hand-offs fire (tests/db/ratings/conftest.py re-seeds the Hanabot table).
pytestmark = pytest.mark.django_db(transaction=True)
embedded_only = pytest.mark.skipif(
    not settings.CELERY_TASK_ALWAYS_EAGER,
    reason="embedded mode: with a broker the real worker tests are in tests/services",
)


@embedded_only
def test_accepted_games_are_rated_on_commit(api):
    games = random_bodies(random.Random(21), 30, pool=8)
    bodies = post(api, games)
    expected = {"rated" if g.get("rated", True) and len(g["players"]) > 1 else "unrated" for g in games}
    assert {b["status"] for b in bodies} == expected
    replay = Replay()
    replay.play(games)
    assert_matches(replay, trueskill=True)  # rate_elo queued rate_trueskill, which ran too


@embedded_only
def test_sweep_rates_what_a_lost_message_left_pending(api):
    games = random_bodies(random.Random(22), 20, titles=("wizard", "tokaido"), pool=6)
    with mock.patch.object(tasks.rate_elo, "delay", side_effect=ConnectionError("broker down")):
        post(api, games)
    assert Game.objects.filter(status="pending").exists()
    assert not Rating.objects.exists()
    tasks.sweep_pending()
    assert not Game.objects.filter(status="pending").exists()
    assert not trueskill_lag()
    replay = Replay()
    replay.play(games)
    assert_matches(replay, trueskill=True)


@embedded_only
def test_tasks_are_idempotent(api):
    post(api, random_bodies(random.Random(23), 10, titles=("nile",), pool=5))
    assert tasks.rate_elo("nile") == 0
    assert tasks.rate_trueskill("nile") == 0


def test_celery_settings_are_really_applied():
    """A misspelled CELERY_* setting is silently ignored: assert the ones correctness relies on."""
    conf = app.conf
    assert conf.task_acks_late is True
    assert conf.task_reject_on_worker_lost is True
    assert conf.task_routes["ratings.tasks.rate_elo"] == {"queue": "elo"}
    assert conf.task_routes["ratings.tasks.rate_trueskill"] == {"queue": "trueskill"}
    assert conf.beat_schedule["sweep-pending-ratings"]["task"] == "ratings.tasks.sweep_pending"
    for name in ("ratings.tasks.rate_elo", "ratings.tasks.rate_trueskill", "ratings.tasks.sweep_pending"):
        assert name in app.tasks
    # Queued by nothing (a void's rebuild is moderation.tasks.void_rebuild, swept): removed, not left to rot.
    assert "ratings.tasks.rebuild_title" not in app.tasks
