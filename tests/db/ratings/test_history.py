"""GET /api/v1/players/{player}/history/{game}/ (docs/api.md, Players; docs/ratings.md, Order and history)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ratings.models import RatingChange
from tests.db.ratings.builders import T0, game_history, make_change, make_game, make_player

URL = "/api/v1/players/{}/history/{}/"


def test_entries_newest_first_with_rounded_values_and_resets(db, anon, server):
    alice, bob = make_player("alice"), make_player("bob")
    g1 = make_game(server, "wizard", T0)
    g2 = make_game(server, "wizard", T0 + timedelta(days=1))
    # Worked example 1 (A beats B, both new), then a loss, then a moderator's reset to R0.
    make_change(alice, "wizard", 1, 1500.0, 1530.0, game=g1, place=1)
    make_change(bob, "wizard", 1, 1500.0, 1470.0, game=g1, place=2)
    make_change(alice, "wizard", 2, 1530.0, 1497.4141, game=g2, place=2, games_before=1)
    make_change(
        alice,
        "wizard",
        3,
        1497.4141,
        1500.0,
        kind=RatingChange.Kind.RESET,
        finished_at=T0 + timedelta(days=2, minutes=5),
        games_before=2,
    )

    response = anon.get(URL.format("alice", "wizard"))

    assert response.status_code == 200
    assert response.json() == {
        "entries": [
            {
                "game_id": None,
                "finished_at": "2026-11-03T12:05:00Z",
                "before": 1497.41,
                "after": 1500.0,
                "delta": 2.59,
                "place": None,
                "kind": "reset",
                # docs/ratings.md, "How settled is a rating": a reset keeps the 2 games played, K 60 → band 180.
                "provisional": True,
                "band": 180.0,
                "games_to_settle": 18,
            },
            {
                "game_id": g2.pk,
                "finished_at": "2026-11-02T12:00:00Z",
                "before": 1530.0,
                "after": 1497.41,
                "delta": -32.59,
                "place": 2,
                "kind": "game",
                "provisional": True,
                "band": 180.0,
                "games_to_settle": 18,
            },
            {
                "game_id": g1.pk,
                "finished_at": "2026-11-01T12:00:00Z",
                "before": 1500.0,
                "after": 1530.0,
                "delta": 30.0,
                "place": 1,
                "kind": "game",
                "provisional": True,
                "band": 180.0,
                "games_to_settle": 19,
            },
        ],
        "next": None,
    }


def test_order_is_the_order_of_application_not_of_finish(db, anon, server):
    # A game that finished earlier but was accepted (and so rated) later comes first: seq decides.
    kim = make_player("kim")
    late = make_game(server, "wizard", T0 + timedelta(days=5))
    early = make_game(server, "wizard", T0)
    make_change(kim, "wizard", 10, 1500.0, 1530.0, game=late, place=1)
    make_change(kim, "wizard", 11, 1530.0, 1515.0, game=early, place=2)
    ids = [e["game_id"] for e in anon.get(URL.format("kim", "wizard")).json()["entries"]]
    assert ids == [early.pk, late.pk]


def test_pagination_through_next_walks_every_entry_once(db, anon, server):
    leo = make_player("leo")
    game_ids = game_history(server, leo, "wizard", 8)
    pages, cursor = [], None
    while True:
        params = {"limit": 3} if cursor is None else {"limit": 3, "before": cursor}
        body = anon.get(URL.format("leo", "wizard"), params).json()
        pages.append([e["game_id"] for e in body["entries"]])
        cursor = body["next"]
        if cursor is None:
            break
    newest_first = game_ids[::-1]
    assert pages == [newest_first[0:3], newest_first[3:6], newest_first[6:8]]
    # The first page's cursor is the seq of its last entry (seq 6: entries 8, 7, 6).
    assert anon.get(URL.format("leo", "wizard"), {"limit": 3}).json()["next"] == 6


def test_next_is_null_when_the_page_ends_exactly_at_the_oldest_entry(db, anon, server):
    mia = make_player("mia")
    game_history(server, mia, "wizard", 4)
    first = anon.get(URL.format("mia", "wizard"), {"limit": 2}).json()
    second = anon.get(URL.format("mia", "wizard"), {"limit": 2, "before": first["next"]}).json()
    assert len(second["entries"]) == 2 and second["next"] is None
    whole = anon.get(URL.format("mia", "wizard"), {"limit": 4}).json()
    assert len(whole["entries"]) == 4 and whole["next"] is None


def test_default_limit_is_50_and_200_is_allowed(db, anon, server):
    ned = make_player("ned")
    RatingChange.objects.bulk_create(
        RatingChange(
            player=ned,
            title="wizard",
            seq=seq,
            kind="reset",
            before=1500.0,
            after=1500.0,
            delta=0.0,
            games_before=0,
            finished_at=T0,
        )
        for seq in range(1, 211)
    )
    default = anon.get(URL.format("ned", "wizard")).json()
    assert len(default["entries"]) == 50 and default["next"] == 161
    assert anon.get(URL.format("ned", "wizard"), {"limit": ""}).json()["next"] == 161  # empty = absent
    most = anon.get(URL.format("ned", "wizard"), {"limit": 200}).json()
    assert len(most["entries"]) == 200 and most["next"] == 11
    rest = anon.get(URL.format("ned", "wizard"), {"limit": 200, "before": 11}).json()
    assert len(rest["entries"]) == 10 and rest["next"] is None


def test_only_this_players_entries_in_this_game(db, anon, server):
    olga, pete = make_player("olga"), make_player("pete")
    wizard_ids = game_history(server, olga, "wizard", 2)
    game_history(server, olga, "tokaido", 3)
    game_history(server, pete, "wizard", 3)
    entries = anon.get(URL.format("olga", "wizard")).json()["entries"]
    assert [e["game_id"] for e in entries] == wizard_ids[::-1]


def test_hanabi_entries_have_no_place(db, anon, server):
    quinn = make_player("quinn")
    game = make_game(server, "hanabi", T0)
    # Worked example 4: class 50, three new players, score 22: -2.76 each.
    make_change(quinn, "hanabi", 1, 1500.0, 1497.244680, game=game, place=1)  # a stray place is never shown
    (entry,) = anon.get(URL.format("quinn", "hanabi")).json()["entries"]
    assert entry == {
        "game_id": game.pk,
        "finished_at": "2026-11-01T12:00:00Z",
        "before": 1500.0,
        "after": 1497.24,
        "delta": -2.76,
        "place": None,
        "kind": "game",
        "provisional": True,
        "band": 180.0,
        "games_to_settle": 19,
    }


def test_entries_show_how_settled_the_rating_was_right_after_each_change(db, anon, server):
    # docs/ratings.md, "How settled is a rating": the 10th game leaves 10 played (next K 40 → band 120, 10 to go);
    # the 20th leaves 20 (K 20 → band 60, settled). No inactivity in history: each entry is as of its change.
    uma = make_player("uma")
    tenth = make_game(server, "wizard", T0)
    twentieth = make_game(server, "wizard", T0 + timedelta(days=1))
    make_change(uma, "wizard", 10, 1500.0, 1520.0, game=tenth, place=1, games_before=9)
    make_change(uma, "wizard", 20, 1520.0, 1530.0, game=twentieth, place=1, games_before=19)
    settled_, mid = anon.get(URL.format("uma", "wizard")).json()["entries"]
    assert (settled_["provisional"], settled_["band"], settled_["games_to_settle"]) == (False, 60.0, 0)
    assert (mid["provisional"], mid["band"], mid["games_to_settle"]) == (True, 120.0, 10)


def test_known_game_without_history_is_empty(db, anon):
    make_player("rita")
    assert anon.get(URL.format("rita", "nile")).json() == {"entries": [], "next": None}


def test_unknown_game_is_404(db, anon):
    make_player("sam")
    response = anon.get(URL.format("sam", "chess"))
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "unknown_game"


def test_unknown_player_is_404(db, anon):
    response = anon.get(URL.format("nobody", "wizard"))
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "player_not_found"


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": "201"}, "limit"),
        ({"limit": "-1"}, "limit"),
        ({"limit": "abc"}, "limit"),
        ({"limit": "1.5"}, "limit"),
        ({"before": "abc"}, "before"),
        ({"before": "-1"}, "before"),
        ({"before": str(2**63)}, "before"),  # beyond a BIGINT: refused, not a database error
    ],
)
def test_bad_query_parameters_are_400(db, anon, params, field):
    make_player("tom")
    response = anon.get(URL.format("tom", "wizard"), params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_input"
    assert list(error["fields"]) == [field]


def test_history_query_count_does_not_grow_with_the_page(db, anon, server, django_assert_num_queries):
    uma = make_player("uma")
    game_history(server, uma, "wizard", 120)
    with django_assert_num_queries(2):
        response = anon.get(URL.format("uma", "wizard"), {"limit": 200})
    assert len(response.json()["entries"]) == 120
