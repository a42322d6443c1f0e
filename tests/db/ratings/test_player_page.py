"""GET /api/v1/players/{player}/ (docs/api.md, Players; levels from docs/ratings.md)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.models import Player
from doors import players as players_api
from ratings.models import Rating
from tests.db.ratings.builders import make_player, make_rating

URL = "/api/v1/players/{}/"


def test_player_page_shape_with_hand_worked_values(db, anon):
    # Worked example 1 of docs/ratings.md, stored unrounded: A beat B, both new.
    alice, bob = make_player("alice"), make_player("bob")
    make_rating(alice, "wizard", 1529.996, games=1)
    make_rating(bob, "wizard", 1470.004, games=1)

    response = anon.get(URL.format("alice"))

    assert response.status_code == 200
    assert response.json() == {
        "player": "alice",
        "status": "active",
        "ratings": {
            "wizard": {
                "elo": 1530.0,
                "level": "Apprentice",
                "games": 1,
                "rank": None,
                # docs/ratings.md, "How settled is a rating": K 60 → band 180, 20 − 1 games to go.
                "provisional": True,
                "band": 180.0,
                "games_to_settle": 19,
                "not_ranked": {
                    "reason": "too_few_games",
                    "message": "1 rated Wizard game so far; 5 are needed to be ranked (4 more).",
                    "games": 1,
                    "games_needed": 5,
                    "last_rated_game_at": None,
                    "window_days": 90,
                },
            }
        },
        # Ratings made by hand, no game went through the Elo stage: no reputation yet, no cool-down.
        "reputation": {"percent": None, "games": 0, "quits": 0},
        "cooldown": None,
    }
    bob_wizard = anon.get(URL.format("bob")).json()["ratings"]["wizard"]
    assert bob_wizard.pop("not_ranked")["reason"] == "too_few_games"
    assert bob_wizard == {
        "elo": 1470.0,
        "level": "Beginner",
        "games": 1,
        "rank": None,
        "provisional": True,
        "band": 180.0,
        "games_to_settle": 19,
    }


def test_one_entry_per_rated_title_and_nothing_else(db, anon):
    carol = make_player("carol")
    make_rating(carol, "wizard", 1545.0, games=3)
    make_rating(carol, "tokaido", 1485.123, games=2)
    make_player("dave")  # another player's ratings never leak in
    make_rating(Player.objects.get(handle="dave"), "spades", 1600.0)

    ratings = anon.get(URL.format("carol")).json()["ratings"]
    assert [entry.pop("not_ranked")["reason"] for entry in ratings.values()] == ["too_few_games"] * 2

    assert ratings == {
        "tokaido": {
            "elo": 1485.12,
            "level": "Beginner",
            "games": 2,
            "rank": None,
            "provisional": True,
            "band": 180.0,
            "games_to_settle": 18,
        },
        "wizard": {
            "elo": 1545.0,
            "level": "Apprentice",
            "games": 3,
            "rank": None,
            "provisional": True,
            "band": 180.0,
            "games_to_settle": 17,
        },
    }


def test_player_without_ratings_and_banned_status(db, anon):
    make_player("mallory", status=Player.Status.BANNED)
    assert anon.get(URL.format("mallory")).json() == {
        "player": "mallory",
        "status": "banned",
        "ratings": {},
        "reputation": {"percent": None, "games": 0, "quits": 0},
        "cooldown": None,
    }


@pytest.mark.parametrize(
    ("elo", "shown", "level"),
    [
        (1500.0, 1500.0, "Beginner"),  # d = 0: Beginner (d <= 0)
        (1499.0, 1499.0, "Beginner"),
        (1100.0, 1100.0, "Beginner"),
        (1500.5, 1500.5, "Apprentice"),  # 0 < d < 100
        (1500.004, 1500.0, "Apprentice"),  # the level uses the unrounded rating: d = 0.004 > 0
        (1599.99, 1599.99, "Apprentice"),
        (1599.996, 1600.0, "Apprentice"),  # shown rounded, but floor(99.996) = 99
        (1600.0, 1600.0, "Average"),  # floor(d) = 100
        (1699.999, 1700.0, "Average"),
        (1700.0, 1700.0, "Good"),
        (1800.0, 1800.0, "Strong"),
        (1999.99, 1999.99, "Strong"),
        (2000.0, 2000.0, "Expert"),
        (2199.5, 2199.5, "Expert"),
        (2200.0, 2200.0, "Master"),
        (2612.346, 2612.35, "Master"),
    ],
)
def test_elo_rounding_and_level_boundaries(db, anon, elo, shown, level):
    make_rating(make_player("erin"), "wizard", elo)
    entry = anon.get(URL.format("erin")).json()["ratings"]["wizard"]
    assert (entry["elo"], entry["level"]) == (shown, level)


def test_level_is_relative_to_the_initial_rating_setting(db, anon, settings):
    settings.ELO_INITIAL = 1200.0
    make_rating(make_player("frank"), "wizard", 1300.0)
    assert anon.get(URL.format("frank")).json()["ratings"]["wizard"]["level"] == "Average"


def test_rank_comes_from_the_leaderboard_and_hanabi_has_none(db, anon, monkeypatch):
    asked = []
    real_ranks_of = players_api.ranks_of

    def ranks_of(*, titles, player_id):
        asked.append((sorted(titles), player_id))
        # Hanabi goes to the real selector: it must answer None without a board to ask.
        return {**real_ranks_of(titles=["hanabi"], player_id=player_id), "wizard": 12, "tokaido": None}

    monkeypatch.setattr(players_api, "ranks_of", ranks_of)
    gina = make_player("gina")
    make_rating(gina, "wizard", 1530.0, games=9)
    make_rating(gina, "tokaido", 1510.0, games=2)
    make_rating(gina, "hanabi", 1560.0, games=7)

    ratings = anon.get(URL.format("gina")).json()["ratings"]

    assert {title: entry["rank"] for title, entry in ratings.items()} == {"hanabi": None, "tokaido": None, "wizard": 12}
    assert asked == [(["hanabi", "tokaido", "wizard"], gina.pk)]


def test_hanabi_rank_asks_no_board(db, django_assert_num_queries):
    gina = make_player("gina")
    make_rating(gina, "hanabi", 1560.0, games=7)
    with django_assert_num_queries(0):
        assert players_api.ranks_of(titles=["hanabi"], player_id=gina.pk) == {"hanabi": None}


def test_rank_is_the_real_leaderboard_rank(db, anon):
    # docs/api.md: ranked = active, at least 5 rated games, a rated game in the last 90 days; equal ratings share.
    recent = timezone.now() - timedelta(days=1)
    handles = {"ann": (1600.0, 5), "ben": (1600.0, 12), "cid": (1550.0, 30), "dot": (1700.0, 4)}
    for handle, (rating, games) in handles.items():
        Rating.objects.create(player=make_player(handle), title="wizard", elo=rating, games=games, last_game_at=recent)
    stale = make_player("eve")
    Rating.objects.create(
        player=stale, title="wizard", elo=1800.0, games=50, last_game_at=timezone.now() - timedelta(days=91)
    )
    banned = make_player("fay", status=Player.Status.BANNED)
    Rating.objects.create(player=banned, title="wizard", elo=1900.0, games=50, last_game_at=recent)

    ranks = {h: anon.get(URL.format(h)).json()["ratings"]["wizard"]["rank"] for h in [*handles, "eve", "fay"]}

    assert ranks == {"ann": 1, "ben": 1, "cid": 3, "dot": None, "eve": None, "fay": None}


def test_unknown_player_is_404(db, anon):
    response = anon.get(URL.format("nobody"))
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "player_not_found", "message": "No player 'nobody'."}}


def test_handles_are_matched_exactly(db, anon):
    make_player("Ivy.x-1")
    assert anon.get(URL.format("Ivy.x-1")).status_code == 200
    assert anon.get(URL.format("ivy.x-1")).status_code == 404


def test_player_page_query_count_is_fixed(db, anon, monkeypatch, django_assert_num_queries):
    # Ranks cost what leaderboards.selectors.ranks_of costs (one call for every title, see the next test); this
    # page's own read is one query (player LEFT JOIN ratings) whatever the number of titles.
    monkeypatch.setattr(players_api, "ranks_of", lambda *, titles, player_id: dict.fromkeys(titles, 1))
    jack = make_player("jack")
    for title in ("wizard", "tokaido", "spades", "nile", "railroad_ink", "hanabi"):
        make_rating(jack, title, 1550.0, games=10)
    with django_assert_num_queries(1):
        response = anon.get(URL.format("jack"))
    assert len(response.json()["ratings"]) == 6


def test_player_page_query_count_with_real_ranks_is_bounded(db, anon, django_assert_max_num_queries):
    kay = make_player("kay")
    for title in ("wizard", "tokaido", "spades", "nile", "railroad_ink", "hanabi"):
        Rating.objects.create(player=kay, title=title, elo=1550.0, games=10, last_game_at=timezone.now())
    # Player + ratings, then the ranks (one query on the database board; exact figures in
    # tests/db/ratings/test_player_page_queries.py).
    with django_assert_max_num_queries(2 + 2 * 5):
        response = anon.get(URL.format("kay"))
    assert {t: e["rank"] for t, e in response.json()["ratings"].items()} == {
        "hanabi": None,
        "nile": 1,
        "railroad_ink": 1,
        "spades": 1,
        "tokaido": 1,
        "wizard": 1,
    }


def test_a_handle_no_player_can_have_is_404_not_a_database_error(db, anon):
    # A NUL byte would make PostgreSQL refuse the query (a 500); such a handle names no player at all.
    for handle in ("al%00ice", "x" * 65):
        response = anon.get(URL.format(handle))
        assert response.status_code == 404 and response.json()["error"]["code"] == "player_not_found"
    response = anon.get(URL.format("al%00ice") + "history/wizard/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "player_not_found"


def test_inactivity_grows_the_band_when_read_and_writes_nothing(db, anon, monkeypatch, django_assert_num_queries):
    # docs/ratings.md, "How settled is a rating", example 4: 42 games, 365 days away:
    # sqrt(60² + 25 × 365) = sqrt(12725) = 112.81 > 110, provisional again, one game to settle.
    monkeypatch.setattr(players_api, "ranks_of", lambda *, titles, player_id: dict.fromkeys(titles, None))
    monkeypatch.setattr(players_api, "not_ranked", lambda **kwargs: None)
    vera = make_player("vera")
    away = timezone.now() - timedelta(days=365, hours=1)
    Rating.objects.create(player=vera, title="wizard", elo=1600.0, games=42, last_game_at=away)
    Rating.objects.create(player=vera, title="nile", elo=1600.0, games=42, last_game_at=timezone.now())
    with django_assert_num_queries(1):  # the one read of the page: no write
        ratings = anon.get(URL.format("vera")).json()["ratings"]
    assert {k: ratings["wizard"][k] for k in ("provisional", "band", "games_to_settle")} == {
        "provisional": True,
        "band": 112.81,
        "games_to_settle": 1,
    }
    assert {k: ratings["nile"][k] for k in ("provisional", "band", "games_to_settle")} == {
        "provisional": False,
        "band": 60.0,
        "games_to_settle": 0,
    }
    assert Rating.objects.get(player=vera, title="wizard").last_game_at == away
