"""The tickets API as docs/api.md and docs/matchmaking.md state it, embedded (a pass runs on create and read).

Every expected table is worked out from the rules by hand in the comments.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.models import Player
from arena.players import player_status_ban
from infra.hashing import hash_ip
from matchmaking.models import Ticket, TicketSeat
from ratings.models import Rating
from tests.db.matchmaking.conftest import ticket_body

pytestmark = pytest.mark.django_db

URL = "/api/v1/matchmaking/tickets/"


def post(api, body, expect=201):
    response = api.post(URL, body, format="json")
    assert response.status_code == expect, response.json()
    return response.json()


def get(api, ticket_id, expect=200):
    response = api.get(f"{URL}{ticket_id}/")
    assert response.status_code == expect, response.json()
    return response.json()


def age(ticket_id, seconds):
    """Pretend the ticket was created ``seconds`` ago (the pass reads the clock; tests move the ticket)."""
    Ticket.objects.filter(pk=ticket_id).update(created_at=timezone.now() - timedelta(seconds=seconds))


# ---- Creating ----------------------------------------------------------------------------------------------


def test_a_new_ticket_waits_and_says_why(api):
    body = post(api, ticket_body("alice", min_players=2, max_players=5))
    assert body["status"] == "waiting"
    assert body["player"] == "alice" and body["game"] == "tokaido" and body["rated"] is True
    assert body["waiting"]["pool_waiting"] == 1
    assert body["waiting"]["elo_tolerance"] == pytest.approx(150, abs=5)  # 150 + 10·(a fraction of a second)
    assert "table" not in body


def test_waiting_ticket_reports_wait_tolerance_and_pool_size(api):
    first = post(api, ticket_body("alice", min_players=4, max_players=4))
    post(api, ticket_body("bob", min_players=4, max_players=4, ip="198.51.100.1"))
    age(first["id"], 20)
    body = get(api, first["id"])
    # Two tickets cannot make the 4 both require: still waiting after 20 s, tolerance 150 + 10·20 = 350.
    assert body["status"] == "waiting"
    assert body["waiting"]["seconds"] == pytest.approx(20, abs=1)
    assert body["waiting"]["elo_tolerance"] == pytest.approx(350, abs=10)
    assert body["waiting"]["pool_waiting"] == 2
    assert body["waiting"]["expires_in"] == pytest.approx(580, abs=1)


def test_the_ip_is_stored_only_as_its_keyed_hash(api):
    body = post(api, ticket_body("alice", ip="203.0.113.7"))
    seat = TicketSeat.objects.get(ticket_id=body["id"])
    assert seat.ip_hash == hash_ip("203.0.113.7")
    assert "203.0.113.7" not in str(list(TicketSeat.objects.values()))
    assert "203.0.113.7" not in str(list(Ticket.objects.values()))


def test_unknown_players_are_created(api):
    post(api, ticket_body("newcomer"))
    assert Player.objects.filter(handle="newcomer").exists()


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"min_players": 1}, "min_players"),  # Tokaido takes 2 to 5
        ({"max_players": 6}, "max_players"),
        ({"min_players": 4, "max_players": 3}, "max_players"),
    ],
)
def test_player_count_range_outside_the_game_is_400_with_the_field(api, extra, field):
    response = api.post(URL, ticket_body("alice", **extra), format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "player_count"
    assert field in response.json()["error"]["fields"]


def test_amigo_wizard_takes_3_to_5_players(api):
    response = api.post(
        URL, ticket_body("alice", game="wizard", variant={"rounds": "amigo"}, max_players=6), format="json"
    )
    assert response.status_code == 400 and "max_players" in response.json()["error"]["fields"]
    assert response.json()["error"]["message"] == "Wizard (rounds amigo) tables take 3 to 5 players."
    post(api, ticket_body("alice", game="wizard", variant={"rounds": "amigo"}, max_players=5))
    plain = api.post(URL, ticket_body("bob", game="wizard", max_players=7), format="json")
    assert plain.json()["error"]["message"] == "Wizard tables take 3 to 6 players."


def test_railroad_ink_tables_need_two_players_though_the_game_allows_one(api):
    response = api.post(URL, ticket_body("alice", game="railroad_ink", min_players=1), format="json")
    assert response.status_code == 400 and "min_players" in response.json()["error"]["fields"]


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        (ticket_body("alice", game="chess"), "unknown_game", "game"),
        (ticket_body("alice", variant={"speed": "fast"}), "unknown_variant_option", "variant.speed"),
        (ticket_body("alice", game="hanabi", variant={"deck": "hard"}), "variant_not_rated", "rated"),
        ({"player": "alice", "game": "tokaido"}, "invalid_input", "ip"),
        (ticket_body("alice", ip="999.1.1.1"), "invalid_input", "ip"),
        (ticket_body("bad name"), "invalid_input", "player"),
        (ticket_body("alice", rated="yes"), "invalid_input", "rated"),
        (ticket_body("alice", colour="red"), "invalid_input", "colour"),
    ],
)
def test_bad_requests_are_400_naming_the_value(api, body, code, field):
    response = api.post(URL, body, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == code
    assert field in response.json()["error"]["fields"]
    assert not Ticket.objects.exists()


def test_no_key_is_401(anon):
    assert anon.post(URL, ticket_body("alice"), format="json").status_code == 401


# ---- One open ticket per player and game --------------------------------------------------------------------


def test_a_second_open_ticket_in_the_same_game_is_409_with_the_open_ticket(api):
    first = post(api, ticket_body("alice"))
    response = api.post(URL, ticket_body("alice", variant={}, rated=False), format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "open_ticket" and first["id"] in error["message"]
    assert error["fields"]["ticket"] == first["id"]


def test_open_tickets_in_two_games_are_fine(api):
    post(api, ticket_body("alice"))
    post(api, ticket_body("alice", game="nile"))


def test_after_cancelling_the_player_may_queue_again(api):
    first = post(api, ticket_body("alice"))
    assert api.delete(f"{URL}{first['id']}/").json()["status"] == "cancelled"
    post(api, ticket_body("alice"))


def test_the_rule_holds_across_game_servers(api, other_api):
    post(api, ticket_body("alice"))
    assert other_api.post(URL, ticket_body("alice"), format="json").status_code == 409


# ---- Banned players ----------------------------------------------------------------------------------------


def test_a_banned_player_cannot_queue(api):
    player_status_ban(player=Player.objects.create(handle="mallory"))
    response = api.post(URL, ticket_body("mallory"), format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "player_banned"
    assert not Ticket.objects.exists()


def test_a_ban_cancels_the_players_waiting_tickets(api, django_capture_on_commit_callbacks):
    waiting = post(api, ticket_body("mallory"))
    as_friend = post(api, ticket_body("bob", game="nile", party=[{"player": "mallory", "ip": "198.51.100.3"}]))
    with django_capture_on_commit_callbacks(execute=True):
        player_status_ban(player=Player.objects.get(handle="mallory"))
    assert get(api, waiting["id"])["status"] == "cancelled"
    assert get(api, as_friend["id"])["status"] == "cancelled"  # the party is seated together or not at all


# ---- Who sees what -----------------------------------------------------------------------------------------


def test_a_game_server_sees_only_its_own_tickets(api, other_api):
    mine = post(api, ticket_body("alice"))
    assert other_api.get(f"{URL}{mine['id']}/").status_code == 404
    assert other_api.delete(f"{URL}{mine['id']}/").status_code == 404
    assert get(api, mine["id"])["status"] == "waiting"


@pytest.mark.parametrize("ticket_id", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_unknown_ticket_is_404(api, ticket_id):
    response = api.get(f"{URL}{ticket_id}/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "ticket_not_found"


# ---- Retries -----------------------------------------------------------------------------------------------


def test_the_same_request_id_returns_the_same_ticket_with_200(api):
    body = ticket_body("alice", request_id="req-1")
    first = post(api, body)
    again = post(api, body, expect=200)
    assert again["id"] == first["id"] and again["request_id"] == "req-1"
    assert Ticket.objects.count() == 1


def test_the_same_request_id_with_another_body_is_409(api):
    post(api, ticket_body("alice", request_id="req-1"))
    response = api.post(URL, ticket_body("bob", request_id="req-1"), format="json")
    assert response.status_code == 409 and response.json()["error"]["code"] == "request_conflict"


def test_request_ids_belong_to_their_game_server(api, other_api):
    body = ticket_body("alice", request_id="req-1")
    post(api, body)
    post(other_api, ticket_body("bob", request_id="req-1"))


# ---- Cancelling --------------------------------------------------------------------------------------------


def test_only_a_waiting_ticket_can_be_cancelled(api):
    first = post(api, ticket_body("alice"))
    assert api.delete(f"{URL}{first['id']}/").status_code == 200
    response = api.delete(f"{URL}{first['id']}/")
    assert response.status_code == 409 and response.json()["error"]["code"] == "ticket_not_waiting"


# ---- Tables ------------------------------------------------------------------------------------------------


def test_four_fresh_tokaido_tickets_form_a_table_of_four(api):
    # Tokaido's recommended size is 4; everyone is a newcomer (Elo 1500): all accept each other at once.
    ids = [post(api, ticket_body(name))["id"] for name in ("a", "b", "c")]
    last = post(api, ticket_body("d"))
    assert last["status"] == "matched"
    table = last["table"]
    assert table["players"] == ["a", "b", "c", "d"]  # longest-waiting first
    assert table["warnings"] == [] and table["game"] == "tokaido" and table["rated"] is True
    for ticket_id in ids:
        body = get(api, ticket_id)
        assert body["status"] == "matched" and body["table"]["id"] == table["id"]
        assert "waiting" not in body


def test_two_tickets_form_a_pair_once_the_older_waited_30s(api):
    first = post(api, ticket_body("a"))
    post(api, ticket_body("b"))
    assert get(api, first["id"])["status"] == "waiting"  # 2 < 4 and nobody has waited 30 s
    age(first["id"], 30)
    assert get(api, first["id"])["table"]["players"] == ["a", "b"]


def test_elo_gap_wider_than_both_tolerances_keeps_them_apart(api):
    # a is 1500 (newcomer), b 1800: 300 apart. After 20 s a accepts 350 but b (fresh) only 150.
    Rating.objects.create(player=Player.objects.create(handle="b"), title="tokaido", elo=1800.0)
    first = post(api, ticket_body("a"))
    age(first["id"], 31)
    post(api, ticket_body("b"))
    assert get(api, first["id"])["status"] == "waiting"


def test_same_ip_table_carries_a_warning(api):
    ids = [post(api, ticket_body(name, ip="203.0.113.7" if name in "ab" else None))["id"] for name in "abc"]
    last = post(api, ticket_body("d"))
    assert last["table"]["warnings"] == [{"code": "same_ip", "players": ["a", "b"]}]
    assert get(api, ids[0])["table"]["warnings"] == last["table"]["warnings"]


def test_a_variant_is_its_own_pool(api):
    for name in "abc":
        post(api, ticket_body(name, game="wizard"))
    # The fourth asks for five_rounds: another pool, so nobody is matched (Wizard recommends 4).
    assert post(api, ticket_body("d", game="wizard", variant={"rounds": "five_rounds"}))["status"] == "waiting"
    # The default variant spelt out is the same pool as no variant.
    assert post(api, ticket_body("e", game="wizard", variant={"rounds": "standard"}))["status"] == "matched"


def test_a_ticket_waiting_10_minutes_expires(api):
    first = post(api, ticket_body("alice"))
    age(first["id"], 600)
    assert get(api, first["id"])["status"] == "expired"
    post(api, ticket_body("alice"))  # expired is closed: the player may queue again


# ---- Parties -----------------------------------------------------------------------------------------------


def test_a_party_is_seated_together(api):
    # A party of three (alice, bob, carol) and one lone ticket make Tokaido's 4 at once.
    party = post(
        api,
        ticket_body(
            "alice", party=[{"player": "bob", "ip": "198.51.100.2"}, {"player": "carol", "ip": "198.51.100.3"}]
        ),
    )
    assert party["party"] == ["bob", "carol"] and party["status"] == "waiting"
    lone = post(api, ticket_body("dave"))
    assert lone["table"]["players"] == ["alice", "bob", "carol", "dave"]


def test_a_party_larger_than_the_game_allows_is_400(api):
    # Spades seats exactly 4: a ticket may bring at most 3 friends; 4 is refused by the parser's cap.
    friends = [{"player": f"f{i}", "ip": f"198.51.100.{i + 1}"} for i in range(4)]
    response = api.post(URL, ticket_body("alice", game="spades", party=friends), format="json")
    assert response.status_code == 400 and "party" in response.json()["error"]["fields"]


def test_a_party_needs_seats_within_max_players(api):
    friends = [{"player": "bob", "ip": "198.51.100.2"}, {"player": "carol", "ip": "198.51.100.3"}]
    response = api.post(URL, ticket_body("alice", party=friends, max_players=2), format="json")
    assert response.status_code == 400 and "max_players" in response.json()["error"]["fields"]


def test_a_party_member_with_an_open_ticket_refuses_the_whole_ticket_naming_them(api):
    open_one = post(api, ticket_body("bob"))
    response = api.post(URL, ticket_body("alice", party=[{"player": "bob", "ip": "198.51.100.2"}]), format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["fields"]["party.0.player"].endswith(open_one["id"] + ".")
    assert Ticket.objects.count() == 1


def test_a_banned_party_member_refuses_the_whole_ticket_naming_them(api):
    player_status_ban(player=Player.objects.create(handle="mallory"))
    response = api.post(URL, ticket_body("alice", party=[{"player": "mallory", "ip": "198.51.100.2"}]), format="json")
    assert response.status_code == 403 and "party.0.player" in response.json()["error"]["fields"]


def test_the_player_cannot_bring_themself(api):
    response = api.post(URL, ticket_body("alice", party=[{"player": "alice", "ip": "198.51.100.2"}]), format="json")
    assert response.status_code == 400 and "party.0.player" in response.json()["error"]["fields"]


# ---- The schema --------------------------------------------------------------------------------------------


def test_the_schema_documents_the_matchmaking_endpoints(anon):
    schema = anon.get("/api/schema/?format=json").json()
    assert {
        "/api/v1/matchmaking/tickets/",
        "/api/v1/matchmaking/tickets/{ticket_id}/",
        "/api/v1/players/{player}/preferences/",
    } <= schema["paths"].keys()
    assert {"TicketInRequest", "TicketOut", "PreferencesInRequest", "PreferencesOut", "MatchTableOut"} <= schema[
        "components"
    ]["schemas"].keys()


@pytest.mark.parametrize(
    ("fragment", "field"),
    [
        ('"request_id": "r-\\ud800"', "request_id"),
        ('"request_id": "r-\\u0000"', "request_id"),
        ('"\\ud800": 1', "\\ud800"),  # an unknown key: named escaped, so the error body itself can be sent
        ('"party": [{"player": "bob", "ip": "203.0.113.9", "\\udc00": 1}]', "party.0.\\udc00"),
    ],
)
def test_a_value_or_key_no_column_can_store_is_400_not_500(api, fragment, field):
    """Valid JSON escapes that decode to an unpaired surrogate or a NUL: PostgreSQL cannot store either, and the
    JSON renderer cannot send a lone surrogate back in the error."""
    raw = json.dumps(ticket_body("alice"))[:-1] + ", " + fragment + "}"
    response = api.post(URL, raw, content_type="application/json")
    assert response.status_code == 400, response.content
    assert field in json.loads(response.content)["error"]["fields"]
    assert not Ticket.objects.exists()


def test_preferences_with_a_key_no_column_can_store_are_400_not_500(api):
    response = api.put(
        "/api/v1/players/alice/preferences/",
        '{"refuse_same_ip": true, "blocked": [], "\\ud800": 1}',
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert "\\ud800" in json.loads(response.content)["error"]["fields"]
