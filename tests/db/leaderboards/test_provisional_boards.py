"""Boards that leave provisional players out (docs/api.md, "Leaderboards"; LEADERBOARD_EXCLUDE_PROVISIONAL): by
default a board lists them marked; a title named in the setting lists settled players (20 games or more) only,
and says why the others are not on it."""

from __future__ import annotations

import pytest

from tests.db.leaderboards.helpers import board, names, rate

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(db) -> None:
    # wizard: ana 25 games (settled), bo 12 (provisional: band 120), cy 5 (provisional: 180). nile: dee 6 games.
    rate("ana", 1600, games=25)
    rate("bo", 1700, games=12)
    rate("cy", 1550, games=5)
    rate("dee", 1500, title="nile", games=6)


def test_by_default_provisional_players_are_listed_and_marked(anon, players):
    entries = board(anon).json()["entries"]
    assert [(e["player"], e["provisional"]) for e in entries] == [("bo", True), ("ana", False), ("cy", True)]


def test_a_title_in_the_setting_lists_settled_players_only(anon, players, settings):
    settings.LEADERBOARD_EXCLUDE_PROVISIONAL = ["wizard"]
    answer = board(anon).json()
    assert (answer["total"], names(board(anon))) == (1, ["ana"])
    assert answer["entries"][0]["rank"] == 1
    assert names(board(anon, "nile")) == ["dee"]  # another title keeps its provisional players
    why = anon.get("/api/v1/players/bo/").json()["ratings"]["wizard"]["not_ranked"]
    assert (why["reason"], why["games_needed"]) == ("provisional", 20)
    assert why["message"] == (
        "12 rated Wizard games: the rating is still provisional, and this board lists settled "
        "players only, from 20 games (8 more)."
    )
    # The player page's rank agrees with the board: ana first, bo and cy unranked.
    page = anon.get("/api/v1/players/ana/").json()["ratings"]["wizard"]
    assert page.get("rank") == 1
