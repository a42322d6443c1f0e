"""Issue 26 §4, the small traps: a misspelt or missing field named with what was meant, ``party_too_large`` as
docs/api.md lists it (docs/api.md, "Errors")."""

from __future__ import annotations

import pytest

from arena.api.field_hints import suggestion
from tests.conftest import game_body, player

pytestmark = pytest.mark.django_db

GAMES = "/api/v1/games/"
TICKETS = "/api/v1/matchmaking/tickets/"


def test_user_instead_of_player_is_named_with_what_was_meant(api):
    body = game_body(
        "tokaido",
        [{"user": "alice", "ip": "203.0.113.1", "score": 61, "achievements": 3}, player("bob", 40, achievements=1)],
    )
    error = api.post(GAMES, body, format="json").json()["error"]
    assert error["code"] == "invalid_input"
    assert error["fields"] == {"players.0.player": "Required.", "players.0.user": "Unknown field; did you mean player?"}


def test_a_missing_game_says_required_and_a_misspelt_top_level_field_its_name(api):
    body = game_body("tokaido", [player("alice", 61, achievements=3), player("bob", 40, achievements=1)])
    body["tabel_id"] = body.pop("table_id")
    del body["game"]
    fields = api.post(GAMES, body, format="json").json()["error"]["fields"]
    assert fields == {"game": "Required.", "table_id": "Required.", "tabel_id": "Unknown field; did you mean table_id?"}


def test_a_tickets_user_and_missing_game(api):
    fields = api.post(TICKETS, {"user": "ann", "ip": "203.0.113.5"}, format="json").json()["error"]["fields"]
    assert fields == {"player": "Required.", "game": "Required.", "user": "Unknown field; did you mean player?"}


def test_too_many_friends_is_party_too_large(api):
    party = [{"player": f"f{i}", "ip": f"198.51.100.{i}"} for i in range(1, 5)]
    error = api.post(
        TICKETS, {"player": "host", "ip": "203.0.113.9", "game": "tokaido", "party": party}, format="json"
    ).json()["error"]
    # Tokaido seats 2 to 5 and a party brings at most 3 friends (docs/matchmaking.md): 4 is too many.
    assert (error["code"], error["fields"]) == ("party_too_large", {"party": "At most 3 friends."})


def test_suggestions_are_only_fields_that_exist():
    assert suggestion("scroe", {"score", "quit"}) == "score"
    assert suggestion("user", {"score"}) is None  # "player" is not among the fields left to send
    assert suggestion("zzz", {"score"}) is None
