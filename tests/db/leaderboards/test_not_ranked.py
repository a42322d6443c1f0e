"""Why a player is not on the board (docs/api.md "Why not on the board", issue 19 #5): the player page's
``not_ranked`` and the leaderboard's ``player_not_ranked`` give the same reason, with the numbers behind it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.models import Player
from tests.db.leaderboards.helpers import board, rate

pytestmark = pytest.mark.django_db
PAGE = "/api/v1/players/{}/"


def _entry(anon, handle: str, title: str = "wizard") -> dict:
    return anon.get(PAGE.format(handle)).json()["ratings"][title]


def test_too_few_games_says_how_many_so_far_and_how_many_more(anon):
    rate("newbie", 1500, games=3, days_ago=2)
    why = _entry(anon, "newbie")["not_ranked"]
    assert why["reason"] == "too_few_games" and why["games"] == 3 and why["games_needed"] == 5
    assert why["message"] == "3 rated Wizard games so far; 5 are needed to be ranked (2 more)."
    error = board(anon, around="newbie").json()["error"]
    assert error["code"] == "player_not_ranked"
    assert error["message"] == "newbie is not on the wizard leaderboard: " + why["message"]
    assert error["fields"] == {"around": why["message"]}


def test_a_last_game_outside_the_90_days_gives_its_date_and_the_window(anon):
    rating = rate("oldtimer", 1600, games=12, days_ago=91)
    why = _entry(anon, "oldtimer")["not_ranked"]
    cutoff = (timezone.now() - timedelta(days=90)).date().isoformat()
    assert why["reason"] == "inactive" and why["window_days"] == 90 and why["games"] == 12
    assert why["last_rated_game_at"] == rating.last_game_at.isoformat().replace("+00:00", "Z")
    assert why["message"] == (
        f"The last rated Wizard game finished on {rating.last_game_at.date().isoformat()}, "
        f"not within the last 90 days (since {cutoff}); one more rated game brings the "
        "player back."
    )
    assert board(anon, around="oldtimer").json()["error"]["fields"]["around"] == why["message"]


def test_hanabi_has_no_board_and_a_banned_player_is_on_none(anon):
    rate("hana", 1500, title="hanabi", games=40)
    assert _entry(anon, "hana", "hanabi")["not_ranked"]["reason"] == "no_leaderboard"
    assert _entry(anon, "hana", "hanabi")["not_ranked"]["message"].startswith("Hanabi has no leaderboard")
    rate("cheat", 1700, games=30, status=Player.Status.BANNED)
    assert _entry(anon, "cheat")["not_ranked"]["reason"] == "banned"


def test_a_ranked_player_has_a_rank_and_no_reason(anon):
    rate("steady", 1550, games=5, days_ago=1)
    entry = _entry(anon, "steady")
    assert entry["rank"] == 1 and "not_ranked" not in entry
