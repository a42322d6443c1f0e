"""The leaderboard's eligibility edges, bracketed tightly, with games recorded and rated the real way.

docs/ratings.md and docs/api.md: ranked are players with at least 5 rated games in the game and a rated game in
the last 90 days. Games go in through POST /api/v1/games/batch/ with chosen ``finished_at`` values, the Elo stage
rates them, and the board is read over HTTP with the clock held at the instant the games were dated from, so a
second either side of the 90 days is a real difference and not a race with the clock.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.conftest import game_body, player
from tests.db.leaderboards.helpers import board, names
from tests.db.ratings.helpers import post, rate_all

DAY = timedelta(days=1)
SECOND = timedelta(seconds=1)


def at(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def games_of(a: str, b: str, count: int, last: object, now) -> list[dict]:
    """``count`` Tokaido games of a beating b, the last one finished at ``last``, the others 200 days ago."""
    older = [
        game_body(
            "tokaido", [player(a, 40, achievements=1), player(b, 30, achievements=1)], finished_at=at(now - 200 * DAY)
        )
        for _ in range(count - 1)
    ]
    return [
        *older,
        game_body("tokaido", [player(a, 40, achievements=1), player(b, 30, achievements=1)], finished_at=at(last)),
    ]


@pytest.fixture
def frozen_now(monkeypatch):
    """The instant every game is dated from; the board is read as of that same instant."""
    now = timezone.now().replace(microsecond=0)

    def hold() -> None:
        monkeypatch.setattr(timezone, "now", lambda: now)

    return now, hold


def test_ninety_days_minus_a_second_is_on_the_board_plus_a_second_is_not(api, anon, frozen_now):
    now, hold = frozen_now
    post(
        api,
        games_of("inside", "inside_b", 5, now - 90 * DAY + SECOND, now)
        + games_of("outside", "outside_b", 5, now - 90 * DAY - SECOND, now),
    )
    rate_all()
    hold()
    listed = names(board(anon, "tokaido"))
    assert "inside" in listed and "inside_b" in listed
    assert "outside" not in listed and "outside_b" not in listed
    assert board(anon, "tokaido").json()["total"] == 2


def test_five_rated_games_are_on_the_board_four_are_not(api, anon, frozen_now):
    now, hold = frozen_now
    post(api, games_of("five", "five_b", 5, now - DAY, now) + games_of("four", "four_b", 4, now - DAY, now))
    rate_all()
    hold()
    assert sorted(names(board(anon, "tokaido"))) == ["five", "five_b"]


def test_an_unrated_fifth_game_does_not_count(api, anon, frozen_now):
    now, hold = frozen_now
    games = games_of("u", "u_b", 5, now - DAY, now)
    games[-1]["rated"] = False
    post(api, games)
    rate_all()
    hold()
    assert names(board(anon, "tokaido")) == []
