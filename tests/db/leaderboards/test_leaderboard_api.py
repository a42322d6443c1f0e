"""GET /api/v1/leaderboards/{game}/ in embedded mode: the database board (docs/api.md, Leaderboards)."""

from __future__ import annotations

import pytest

from arena.models import Player
from arena.players import player_status_ban, player_status_unban
from leaderboards import db_board
from leaderboards.selectors import rank_of
from tests.db.leaderboards.helpers import board, names, ranks, rate


def test_ties_share_a_rank(anon):
    rate("zed", 2012.4)
    rate("bob", 1900)
    rate("amy", 1900)
    rate("dan", 1800)
    response = board(anon)
    assert response.status_code == 200
    body = response.json()
    assert body["game"] == "wizard" and body["total"] == 4
    assert ranks(response) == [1, 2, 2, 4]
    # Equal Elo: by player id (the order the players were created), the same order in the Redis board.
    assert names(response) == ["zed", "bob", "amy", "dan"]
    assert body["entries"][0] == {
        "rank": 1,
        "player": "zed",
        "elo": 2012.4,
        "games": 5,
        # docs/ratings.md, "How settled is a rating": 5 games, K 60 → 180, 15 to go.
        "provisional": True,
        "band": 180.0,
        "games_to_settle": 15,
    }


def test_elo_is_rounded_to_two_decimals(anon):
    rate("a", 1534.56789, games=12)
    assert board(anon).json()["entries"] == [
        {
            "rank": 1,
            "player": "a",
            "elo": 1534.57,
            "games": 12,
            "provisional": True,
            "band": 120.0,
            "games_to_settle": 8,
        }
    ]


@pytest.mark.parametrize(
    ("games", "days_ago", "ranked"),
    [
        (4, 1, False),
        (5, 1, True),
        (5, 89, True),
        (5, 91, False),
        (30, None, False),
    ],
)
def test_eligibility_edges(anon, games, days_ago, ranked):
    rate("edge", 1600, games=games, days_ago=days_ago)
    rate("other", 1500)
    response = board(anon)
    assert ("edge" in names(response)) is ranked
    assert response.json()["total"] == (2 if ranked else 1)


def test_only_the_title_asked_for(anon):
    rate("w", 1500, title="wizard")
    rate("t", 1700, title="tokaido")
    assert names(board(anon, "tokaido")) == ["t"]
    assert names(board(anon, "wizard")) == ["w"]


def test_a_ban_removes_the_player_at_once_and_an_unban_restores(anon, django_capture_on_commit_callbacks):
    cheat = rate("cheat", 2500).player
    rate("fair", 1500)
    with django_capture_on_commit_callbacks(execute=True):
        player_status_ban(player=cheat)
    response = board(anon)
    assert names(response) == ["fair"] and ranks(response) == [1] and response.json()["total"] == 1
    with django_capture_on_commit_callbacks(execute=True):
        player_status_unban(player=cheat)
    assert names(board(anon)) == ["cheat", "fair"]


def test_pages_with_offset_and_limit(anon):
    for i in range(10):
        rate(f"p{i}", 2000 - 10 * i)
    response = board(anon, limit=3, offset=4)
    assert names(response) == ["p4", "p5", "p6"]
    assert ranks(response) == [5, 6, 7]
    assert response.json()["total"] == 10
    assert board(anon, offset=10).json() == {"game": "wizard", "total": 10, "entries": []}
    assert len(board(anon).json()["entries"]) == 10


def test_a_page_that_starts_inside_a_tie(anon):
    rate("a", 2000)
    rate("b", 1900)
    rate("c", 1900)
    rate("d", 1900)
    rate("e", 1800)
    response = board(anon, offset=2, limit=3)
    assert names(response) == ["c", "d", "e"]
    assert ranks(response) == [2, 2, 5]


def test_default_limit_is_50_and_200_is_allowed(anon):
    for i in range(60):
        rate(f"p{i:02}", 1000 + i)
    assert len(board(anon).json()["entries"]) == 50
    assert len(board(anon, limit=200).json()["entries"]) == 60


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"limit": ""}, "limit"),
        ({"limit": "1.5"}, "limit"),
        ({"limit": "²"}, "limit"),
        ({"offset": "9" * 5000}, "offset"),
        ({"around": ""}, "around"),
        ({"offset": -1}, "offset"),
        ({"offset": "x"}, "offset"),
        ({"around": "a", "offset": 3}, "offset"),
        ({"around": "bad name!"}, "around"),
    ],
)
def test_bad_query_is_400_with_fields(anon, params, field):
    response = board(anon, **params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_input" and field in error["fields"]


def test_around_a_player_is_a_centred_window(anon):
    for i in range(20):
        rate(f"p{i:02}", 2000 - i)
    response = board(anon, around="p10", limit=5)
    assert names(response) == ["p08", "p09", "p10", "p11", "p12"]
    assert ranks(response) == [9, 10, 11, 12, 13]
    assert response.json()["total"] == 20


def test_around_defaults_to_11_and_is_clipped_at_the_top_and_bottom(anon):
    for i in range(20):
        rate(f"p{i:02}", 2000 - i)
    top = board(anon, around="p01")
    assert names(top) == [f"p{i:02}" for i in range(11)]
    bottom = board(anon, around="p19", limit=3)
    assert names(bottom) == ["p17", "p18", "p19"]


def test_around_with_ties_places_the_player_by_id(anon):
    rate("a", 2000)
    for handle in ("t1", "t2", "t3"):
        rate(handle, 1900)
    rate("z", 1000)
    response = board(anon, around="t3", limit=1)
    assert names(response) == ["t3"] and ranks(response) == [2]


def test_around_unknown_or_unranked_player_is_404(anon):
    rate("ranked", 1500)
    rate("newbie", 1500, games=4)
    assert board(anon, around="nobody").json()["error"]["code"] == "player_not_found"
    response = board(anon, around="newbie")
    assert response.status_code == 404 and response.json()["error"]["code"] == "player_not_ranked"


def test_hanabi_has_no_leaderboard_and_unknown_games_are_404(anon):
    rate("h", 1500, title="hanabi")
    response = board(anon, "hanabi")
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "no_leaderboard", "message": "hanabi has no leaderboard."}}
    response = board(anon, "chess")
    assert response.status_code == 404 and response.json()["error"]["code"] == "unknown_game"


def test_empty_board(anon):
    assert board(anon, "nile").json() == {"game": "nile", "total": 0, "entries": []}


def test_public_reads_need_no_key_and_ignore_a_bad_one(anon):
    anon.credentials(HTTP_AUTHORIZATION="Api-Key nonsense")
    assert board(anon).status_code == 200


def test_throttled_per_ip_with_retry_after(anon, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"public": "2/min"}}
    assert board(anon).status_code == 200
    assert board(anon).status_code == 200
    response = board(anon)
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert response.json()["error"]["code"] == "throttled"
    # Per client IP: another address is still served.
    assert anon.get("/api/v1/leaderboards/wizard/", REMOTE_ADDR="198.51.100.1").status_code == 200


def test_rank_of_for_the_player_page():
    alice = rate("alice", 1900).player
    rate("bob", 2000)
    rate("carol", 1900)
    newbie = rate("newbie", 2100, games=4).player
    rate("alice", 1500, title="hanabi")
    assert rank_of(title="wizard", player_id=alice.pk) == 2
    assert rank_of(title="wizard", player_id=newbie.pk) is None
    assert rank_of(title="hanabi", player_id=alice.pk) is None
    assert rank_of(title="tokaido", player_id=alice.pk) is None


def test_a_page_costs_four_queries(anon, django_assert_num_queries):
    for i in range(30):
        rate(f"p{i}", 1500 + i)
    with django_assert_num_queries(4):
        assert board(anon, limit=20).status_code == 200


def test_schema_names_the_leaderboard_components(anon):
    schema = anon.get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]
    assert {"LeaderboardOut", "LeaderboardEntryOut"} <= set(components)
    operation = schema["paths"]["/api/v1/leaderboards/{game}/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"game", "limit", "offset", "around"}
    assert operation.get("security") in (None, [], [{}])


def test_many_banned_players_are_excluded_by_a_subquery(anon, monkeypatch):
    monkeypatch.setattr(db_board, "_BANNED_INLINE", 0)
    rate("fair", 1500)
    rate("cheat", 2500)
    Player.objects.filter(handle="cheat").update(status=Player.Status.BANNED)
    response = board(anon)
    assert names(response) == ["fair"] and response.json()["total"] == 1


def test_provisional_players_are_marked_and_settled_ones_not(anon):
    # docs/ratings.md, "How settled is a rating": 19 games → next K 40 → band 120, one game to go; 20 → K 20 → 60.
    rate("nearly", 1700, games=19)
    rate("settled", 1600, games=20)
    marks = [(e["player"], e["provisional"], e["band"], e["games_to_settle"]) for e in board(anon).json()["entries"]]
    assert marks == [("nearly", True, 120.0, 1), ("settled", False, 60.0, 0)]
