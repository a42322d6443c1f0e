"""A resend is compared by what the game means, not by its bytes (docs/api.md "Resending a game", issue 19 #3).

Runs on either store: embedded (SQLite, the portable ORM store) and on PostgreSQL (its statements) in the
service-backed phase, so both answer a resend alike.
"""

from __future__ import annotations

import copy

import pytest

from arena.models import Game, Player, Seat
from tests.conftest import game_body

pytestmark = pytest.mark.django_db


def _tokaido() -> dict:
    return {
        "table_id": "R-1",
        "game": "tokaido",
        "finished_at": "2026-11-29T12:00:00Z",
        "players": [
            {"player": "alice", "ip": "203.0.113.7", "score": 61, "achievements": 3},
            {"player": "bob", "ip": "198.51.100.2", "score": 61, "achievements": 1},
            {"player": "carol", "ip": "198.51.100.9", "score": 40, "achievements": 0},
        ],
    }


def _nile(with_score: bool) -> dict:
    players = [
        {"player": "nia", "ip": "203.0.113.20", "crops": [3, 4, 5, 6, 7]},
        {"player": "oto", "ip": "203.0.113.21", "crops": [2, 9, 9, 9, 9]},
    ]
    if with_score:
        players[0]["score"], players[1]["score"] = 3, 2
    return {"table_id": "N-1", "game": "nile", "players": players}


def _resend(api, first: dict, again: dict):
    created = api.post("/api/v1/games/", first, format="json")
    assert created.status_code == 201, created.json()
    return created, api.post("/api/v1/games/", again, format="json")


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda b: b.update(rated=True), id="rated-true-explicit"),
        pytest.param(lambda b: b.update(variant={}), id="empty-variant"),
        pytest.param(lambda b: b.update(details=None), id="null-details"),
        pytest.param(lambda b: b["players"].reverse(), id="players-reversed"),
        pytest.param(lambda b: b["players"].insert(0, b["players"].pop()), id="players-rotated"),
        pytest.param(lambda b: [p.update(quit=False) for p in b["players"]], id="quit-false-explicit"),
        pytest.param(lambda b: b["players"][0].update(ip="::ffff:203.0.113.7"), id="same-address-ipv4-mapped"),
        pytest.param(lambda b: b.update(finished_at="2026-11-29T13:00:00+01:00"), id="same-instant-other-offset"),
        pytest.param(lambda b: b.pop("finished_at"), id="finished-at-left-out"),
    ],
)
def test_a_resend_that_means_the_same_game_is_200(api, change):
    again = _tokaido()
    change(again)
    created, response = _resend(api, _tokaido(), again)
    assert response.status_code == 200, response.json()
    assert response.json()["id"] == created.json()["id"]
    assert Game.objects.count() == 1 and Seat.objects.count() == 3


def test_a_variant_default_made_explicit_is_the_same_game(api):
    body = game_body(
        "wizard", [{"player": f"w{i}", "ip": f"203.0.113.{30 + i}", "score": s} for i, s in enumerate((30, 20, 10))]
    )
    _, response = _resend(api, body, dict(body, variant={"rounds": "standard"}))
    assert response.status_code == 200


@pytest.mark.parametrize("first, again", [(True, False), (False, True)], ids=["score-left-out", "score-added"])
def test_nile_score_left_out_or_sent_is_the_same_game(api, first, again):
    _, response = _resend(api, _nile(first), _nile(again))
    assert response.status_code == 200, response.json()


def test_hanabi_team_named_or_not_is_the_same_game(api):
    body = game_body(
        "hanabi",
        [{"player": "h1", "ip": "203.0.113.40", "score": 20}, {"player": "h2", "ip": "203.0.113.41", "score": 20}],
    )
    named = copy.deepcopy(body)
    for entry in named["players"]:
        entry["team"] = "blue"
    _, response = _resend(api, body, named)
    assert response.status_code == 200


def test_a_real_conflict_names_each_differing_field_by_its_path_in_the_resend(api):
    again = _tokaido()
    again["players"].reverse()  # carol, bob, alice: paths follow the body sent
    again["players"][1]["score"] = 62  # bob
    again["players"][2]["achievements"] = 4  # alice
    again["rated"] = False
    _, response = _resend(api, _tokaido(), again)
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "table_conflict"
    assert error["fields"] == {
        "rated": "Differs from the recorded game: true.",
        "players.1.score": "Differs from the recorded game: 61.",
        "players.2.achievements": "Differs from the recorded game: 3.",
    }


def test_a_conflict_names_a_player_swapped_in_and_one_left_out_and_never_shows_an_address(api):
    again = _tokaido()
    again["players"][2]["player"] = "dave"
    again["players"][0]["ip"] = "192.0.2.99"
    _, response = _resend(api, _tokaido(), again)
    assert response.status_code == 409
    fields = response.json()["error"]["fields"]
    assert fields == {
        "players": "Leaves out carol, recorded at this table.",
        "players.2.player": "dave was not at this table as recorded.",
        "players.0.ip": "Differs from the recorded one.",
    }
    assert "203.0.113.7" not in response.content.decode()
    assert not Player.objects.filter(handle="dave").exists()


def test_a_finish_time_sent_with_the_resend_must_match(api):
    again = _tokaido()
    again["finished_at"] = "2026-11-29T12:00:01Z"
    _, response = _resend(api, _tokaido(), again)
    assert response.status_code == 409
    assert set(response.json()["error"]["fields"]) == {"finished_at"}


def test_in_one_batch_a_reordered_repeat_is_200_and_a_changed_one_409(api):
    first = _tokaido()
    reordered = _tokaido()
    reordered["players"].reverse()
    changed = _tokaido()
    changed["players"][0]["score"] = 70
    results = api.post("/api/v1/games/batch/", {"games": [first, reordered, changed]}, format="json").json()["results"]
    assert [r["status_code"] for r in results] == [201, 200, 409]
    assert results[2]["body"]["error"]["fields"] == {"players.0.score": "Differs from the recorded game: 61."}


def test_a_game_stored_under_an_older_fingerprint_is_still_recognised_by_its_rows(api):
    """Games recorded before resends were compared by meaning carry a fingerprint of the body as sent."""
    created, _ = _resend(api, _tokaido(), _tokaido())
    Game.objects.filter(pk=created.json()["id"]).update(fingerprint="f" * 64)
    assert api.post("/api/v1/games/", _tokaido(), format="json").status_code == 200
    changed = _tokaido()
    changed["players"][2]["score"] = 41
    assert api.post("/api/v1/games/", changed, format="json").status_code == 409
