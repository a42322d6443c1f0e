"""Reputation and cool-downs as the Elo stage keeps them (docs/matchmaking.md), counted by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from rest_framework.test import APIClient

from ratings.models import Reputation
from tests.conftest import game_body, player
from tests.db.ratings.helpers import post, rate_all

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def duel(n: int, *, quit_: bool = False, title: str = "tokaido", minutes: int = 0) -> dict:
    extra = {"achievements": 0} if title == "tokaido" else {}
    me = player("rep", 30, **extra, **({"quit": True} if quit_ else {}))
    return game_body(
        title, [me, player(f"opp{n}", 20, **extra)], finished_at=(T0 + timedelta(minutes=minutes)).isoformat()
    )


def test_reputation_counts_every_title_and_the_quits(api):
    # 12 games: 7 Tokaido finished, 1 Tokaido quit, 4 Railroad Ink finished; 1 quit: 11 / 12 = 91.67 %.
    bodies = [duel(i, minutes=i) for i in range(7)] + [duel(7, quit_=True, minutes=7)]
    bodies += [
        game_body(
            "railroad_ink",
            [player("rep", 12, errors=0), player(f"ri{i}", 10, errors=0)],
            finished_at=(T0 + timedelta(minutes=10 + i)).isoformat(),
        )
        for i in range(4)
    ]
    post(api, bodies)
    rate_all()
    body = APIClient().get("/api/v1/players/rep/").json()
    assert body["reputation"] == {"percent": 91.67, "games": 12, "quits": 1}
    assert body["cooldown"] is None
    # Each opponent played one game: no reputation yet.
    assert APIClient().get("/api/v1/players/opp0/").json()["reputation"] == {"percent": None, "games": 1, "quits": 0}


def test_the_third_quit_in_ten_games_starts_a_cool_down_from_its_finish(api):
    # Quits at games 2, 5 and 8 (finished at T0 + 2, 5 and 8 minutes): the third starts 15 minutes, until T0 + 23.
    post(api, [duel(i, quit_=i in (2, 5, 8), minutes=i) for i in range(9)])
    rate_all()
    row = Reputation.objects.get(player__handle="rep")
    assert row.recent == "ffqffqffq"
    assert (row.cooldown_until, row.cooldown_seconds, row.cooldown_started_at, row.last_quit_at) == (
        T0 + timedelta(minutes=23),
        900,
        T0 + timedelta(minutes=8),
        T0 + timedelta(minutes=8),
    )


def test_the_cool_down_does_not_depend_on_the_batch_size(api):
    # The same nine games rated one at a time: the same row (each quit judged on the games before it).
    post(api, [duel(i, quit_=i in (2, 5, 8), minutes=i) for i in range(9)])
    rate_all(limit=1)
    row = Reputation.objects.get(player__handle="rep")
    assert row.recent == "ffqffqffq" and row.cooldown_until == T0 + timedelta(minutes=23)


def test_a_repeat_within_a_day_doubles_across_batches(api):
    # First cool-down at T0 + 8 min (15 min); a fourth quit one hour later (T0 + 68 min), 4 quits in 10: 30 min.
    post(api, [duel(i, quit_=i in (2, 5, 8), minutes=i) for i in range(9)])
    rate_all()
    post(api, [duel(9, quit_=True, minutes=68)])
    rate_all()
    row = Reputation.objects.get(player__handle="rep")
    assert (row.cooldown_seconds, row.cooldown_until) == (1800, T0 + timedelta(minutes=98))
