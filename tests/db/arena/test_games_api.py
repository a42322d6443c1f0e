"""POST/GET /api/v1/games/ and the batch endpoint, as a game server uses them (docs/api.md).

These run embedded (SQLite) and again on PostgreSQL + Redis in the service-backed phase.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from arena.models import Game, Player, Seat
from arena.recording_store import recording_store
from infra.api.errors import BUSY_RETRY_AFTER_SECONDS
from infra.db import RETRY_ATTEMPTS, StaleRead
from infra.hashing import hash_ip
from tests.conftest import game_body, player

pytestmark = pytest.mark.django_db


def wizard(*scores: int, **extra):
    return game_body("wizard", [player(f"p{i}", s) for i, s in enumerate(scores)], **extra)


def error_of(response) -> dict:
    return response.json()["error"]


def test_records_a_game_with_places_and_pending_status(api):
    body = {
        "table_id": "T-48213",
        "game": "wizard",
        "variant": {"rounds": "standard"},
        "rated": True,
        "finished_at": "2026-11-29T12:00:00Z",
        "players": [
            {"player": "alice", "ip": "203.0.113.7", "device": "fp-9a1c", "score": 180},
            {"player": "bob", "ip": "198.51.100.2", "score": 120},
            {"player": "carol", "ip": "198.51.100.9", "score": 60, "quit": True},
        ],
        "details": {},
    }
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["table_id"] == "T-48213" and data["game"] == "wizard" and data["rated"] is True
    assert data["places"] == {"alice": 1, "bob": 2, "carol": 3}
    assert data["warnings"] == []
    game = Game.objects.get(pk=data["id"])
    assert game.status in ("pending", "rated")  # embedded mode may rate at once on commit
    assert game.variant == {"rounds": "standard"}
    assert Player.objects.filter(handle__in=["alice", "bob", "carol"]).count() == 3


def test_get_returns_the_same_shape(api):
    created = api.post("/api/v1/games/", wizard(30, 20, 10), format="json").json()
    fetched = api.get(f"/api/v1/games/{created['id']}/")
    assert fetched.status_code == 200
    # The POST's answer, and what was recorded beside it (issue 26 §2: variant, finished_at, players, details).
    read = fetched.json()
    assert {k: v for k, v in read.items() if k in created and k != "status"} == {
        k: v for k, v in created.items() if k != "status"
    }
    assert set(read) - set(created) == {"variant", "finished_at", "players", "details"}


def test_identical_resend_returns_200_and_changes_nothing(api):
    body = wizard(30, 20, 10)
    first = api.post("/api/v1/games/", body, format="json")
    again = api.post("/api/v1/games/", body, format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert Game.objects.count() == 1 and Seat.objects.count() == 3


def test_same_table_with_another_body_is_a_conflict(api):
    body = wizard(30, 20, 10)
    api.post("/api/v1/games/", body, format="json")
    body["players"][0]["score"] = 40
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 409
    assert error_of(response)["code"] == "table_conflict"
    assert Game.objects.count() == 1


def test_a_conflicting_resend_writes_nothing_not_even_its_new_players(api):
    body = wizard(30, 20, 10)
    api.post("/api/v1/games/", body, format="json")
    body["players"][2]["player"] = "newcomer"
    response = api.post("/api/v1/games/", body, format="json")
    batch = api.post("/api/v1/games/batch/", {"games": [body]}, format="json").json()["results"]
    assert response.status_code == 409 and batch[0]["status_code"] == 409
    assert not Player.objects.filter(handle="newcomer").exists()
    assert Seat.objects.count() == 3


def test_table_ids_are_per_server(api, make_game):
    from rest_framework.test import APIClient

    from arena.servers import game_server_create

    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Api-Key {game_server_create(name='other').key}")
    body = wizard(30, 20, 10)
    assert api.post("/api/v1/games/", body, format="json").status_code == 201
    assert other.post("/api/v1/games/", body, format="json").status_code == 201
    assert Game.objects.count() == 2


def test_a_server_cannot_read_another_servers_game(api):
    from rest_framework.test import APIClient

    from arena.servers import game_server_create

    game_id = api.post("/api/v1/games/", wizard(3, 2, 1), format="json").json()["id"]
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Api-Key {game_server_create(name='nosy').key}")
    response = other.get(f"/api/v1/games/{game_id}/")
    assert response.status_code == 404 and error_of(response)["code"] == "game_not_found"


def test_unknown_game_id_is_404(api):
    response = api.get("/api/v1/games/999999/")
    assert response.status_code == 404 and error_of(response)["code"] == "game_not_found"


# ---------------------------------------------------------------- authentication


def test_missing_key_is_401(anon):
    response = anon.post("/api/v1/games/", wizard(3, 2, 1), format="json")
    assert response.status_code == 401 and error_of(response)["code"] == "missing_api_key"
    assert "'Authorization: Api-Key <key>'" in error_of(response)["message"]
    assert Game.objects.count() == 0


def test_wrong_key_and_wrong_scheme_are_401(anon, server_key):
    anon.credentials(HTTP_AUTHORIZATION="Api-Key not-a-key")
    assert error_of(anon.get("/api/v1/games/1/"))["code"] == "invalid_api_key"
    for scheme in ("Basic", "Token"):  # other schemes are refused as before
        anon.credentials(HTTP_AUTHORIZATION=f"{scheme} {server_key[1]}")
        assert error_of(anon.get("/api/v1/games/1/"))["code"] == "invalid_api_key", scheme
    anon.credentials(HTTP_AUTHORIZATION="Bearer not-a-key")
    assert error_of(anon.get("/api/v1/games/1/"))["code"] == "invalid_api_key"


def test_the_key_is_taken_under_bearer_too(anon, server_key):
    """What generated clients send by default (docs/api.md, "Generated clients"): the same key, the same answer."""
    body = wizard(3, 2, 1)
    anon.credentials(HTTP_AUTHORIZATION=f"Bearer {server_key[1]}")
    created = anon.post("/api/v1/games/", body, format="json")
    assert created.status_code == 201
    anon.credentials(HTTP_AUTHORIZATION=f"Api-Key {server_key[1]}")
    again = anon.post("/api/v1/games/", body, format="json")
    assert (again.status_code, again.json()["id"]) == (200, created.json()["id"])


def test_revoked_key_is_401(api, server_key):
    from arena.servers import game_server_revoke

    game_server_revoke(server=server_key[0])
    response = api.post("/api/v1/games/", wizard(3, 2, 1), format="json")
    assert response.status_code == 401 and error_of(response)["code"] == "invalid_api_key"


def test_only_the_hash_of_a_key_is_stored(server_key):
    server, key = server_key
    server.refresh_from_db()
    stored = {str(getattr(server, f.attname)) for f in server._meta.concrete_fields}
    assert key not in stored and all(key not in value for value in stored)


# ---------------------------------------------------------------- bad input: 400 with a code and paths


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda b: b.pop("table_id"), "table_id"),
        (lambda b: b.update(table_id="x" * 65), "table_id"),
        (lambda b: b.update(table_id=""), "table_id"),
        (lambda b: b.update(rated="yes"), "rated"),
        (lambda b: b.update(variant=[]), "variant"),
        (lambda b: b.update(details="none"), "details"),
        (lambda b: b.update(players=[]), "players"),
        (lambda b: b.update(finished_at="yesterday"), "finished_at"),
        (lambda b: b.update(finished_at="2026-01-01T12:00:00"), "finished_at"),  # no timezone
        (lambda b: b.update(finished_at="2026-01-01T12:00:00+25:00"), "finished_at"),  # no such offset
        (lambda b: b.update(finished_at="2026-02-30T12:00:00Z"), "finished_at"),  # no such day
        (lambda b: b.update(finished_at="0001-01-01T00:00:00+14:00"), "finished_at"),  # before year 1 in UTC
        (lambda b: b.update(finished_at="1999-12-31T23:59:59Z"), "finished_at"),  # before 2000
        (lambda b: b.update(surprise=1), "surprise"),
        (lambda b: b["players"][2].update(player="bad id!"), "players.2.player"),
        (lambda b: b["players"][2].update(player="carol\n"), "players.2.player"),
        (lambda b: b["players"][2].update(player="x" * 65), "players.2.player"),
        (lambda b: b["players"][1].pop("ip"), "players.1.ip"),
        (lambda b: b["players"][1].update(ip="300.1.1.1"), "players.1.ip"),
        (lambda b: b["players"][2].update(score="12"), "players.2.score"),
        (lambda b: b["players"][2].update(score=True), "players.2.score"),
        (lambda b: b["players"][2].update(score=10**12), "players.2.score"),  # would overflow the column
        # PostgreSQL text and jsonb cannot hold NUL: refused up front, wherever it hides.
        (lambda b: b.update(table_id="T\x00-1"), "table_id"),
        (lambda b: b["players"][0].update(device="fp\x00"), "players.0.device"),
        (lambda b: b.update(details={"rounds": [{"p\x00": {}}]}), "details.rounds.0.p\x00"),
        (lambda b: b["players"][0].update(quit="no"), "players.0.quit"),
        (lambda b: b["players"].__setitem__(1, "bob"), "players.1"),
    ],
)
def test_malformed_bodies_are_refused_with_the_path(api, mutate, path):
    body = wizard(30, 20, 10)
    mutate(body)
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 400, response.json()
    error = error_of(response)
    assert error["code"] == "invalid_input"
    assert path in error["fields"], error
    assert Game.objects.count() == 0 and Player.objects.count() == 0


@pytest.mark.parametrize(
    ("fragment", "path"),
    [
        ('"table_id": "T-\\ud800"', "table_id"),
        ('"details": {"note": "\\udc00 lone"}', "details.note"),
        ('"details": {"\\ud83d": 1}', "details.\\ud83d"),  # the path names it escaped
    ],
)
def test_unpaired_surrogates_are_refused_not_a_500(api, fragment, path):
    # Valid JSON ("\ud800" is a legal escape) that decodes to a string no UTF-8 column can store.
    body = wizard(30, 20, 10)
    body.pop("table_id")
    raw = json.dumps(body)[:-1] + ", " + fragment + "}"
    response = api.post("/api/v1/games/", raw, content_type="application/json")
    assert response.status_code == 400, response.content
    assert error_of(response)["code"] == "invalid_input" and path in error_of(response)["fields"]
    assert Game.objects.count() == 0 and Player.objects.count() == 0


def test_finished_at_in_the_future_is_refused(api):
    future = (timezone.now() + timedelta(hours=1)).isoformat()
    response = api.post("/api/v1/games/", wizard(3, 2, 1, finished_at=future), format="json")
    assert response.status_code == 400
    assert error_of(response)["fields"] == {"finished_at": "Must not be more than 5 minutes ahead of Arena's clock."}
    soon = (timezone.now() + timedelta(minutes=4)).isoformat()  # a game server's clock a little ahead: accepted
    assert api.post("/api/v1/games/", wizard(3, 2, 1, finished_at=soon), format="json").status_code == 201


@pytest.mark.parametrize("path", ["/api/v1/games/", "/api/v1/games/batch/"])
def test_json_nested_thousands_deep_is_malformed_not_a_500(api, path):
    # Python's decoder gives up with RecursionError, which DRF alone would let through as a 500. Since issue 25
    # the parser's budget refuses it before decoding (nesting past API_MAX_JSON_DEPTH): body_too_complex.
    raw = '{"details": ' + "[" * 5000 + "]" * 5000 + "}"
    response = api.post(path, raw, content_type="application/json")
    assert response.status_code == 400 and error_of(response)["code"] == "body_too_complex"


def test_details_nested_past_the_limit_are_refused_with_the_path(api):
    # MAX_DEPTH is 32: the body is level 0 and "details" level 1, so nest(31) has objects on levels 1..31
    # (allowed) and nest(32) one on level 32, reached by "details" and then 31 times ".a" (refused).
    def nest(levels: int) -> dict:  # exactly ``levels`` objects, one inside the other
        inner: dict = {}
        for _ in range(levels - 1):
            inner = {"a": inner}
        return inner

    # Wizard's details have no key "a": a body within the limit gets as far as that rule of the game.
    within = api.post("/api/v1/games/", wizard(30, 20, 10, details=nest(31)), format="json")
    assert error_of(within)["code"] == "invalid_details" and error_of(within)["fields"] == {
        "details.a": "Wizard details have no key 'a'."
    }
    response = api.post("/api/v1/games/", wizard(30, 20, 10, details=nest(32)), format="json")
    assert response.status_code == 400 and error_of(response)["code"] == "invalid_input"
    assert error_of(response)["fields"] == {"details" + ".a" * 31: "Nested more than 32 levels deep."}
    assert Game.objects.count() == 0


def test_malformed_json_is_400(api):
    response = api.generic("POST", "/api/v1/games/", "{not json", content_type="application/json")
    assert response.status_code == 400 and error_of(response)["code"] == "malformed_json"


def test_unknown_game_is_400_unknown_game(api):
    response = api.post("/api/v1/games/", game_body("chess", [player("a", 1), player("b", 0)]), format="json")
    assert response.status_code == 400
    assert error_of(response)["code"] == "unknown_game" and "game" in error_of(response)["fields"]


@pytest.mark.parametrize(
    ("body", "code", "path"),
    [
        (lambda: wizard(3, 2), "player_count", "players"),
        (
            lambda: game_body("wizard", [player("a", 3), player("b", 2), player("a", 1)]),
            "duplicate_player",
            "players.2.player",
        ),
        (
            lambda: game_body("wizard", [player("a", 3, quit=True), player("b", 2), player("c", 1, quit=True)]),
            "too_many_quitters",
            "players.2.quit",
        ),
        (lambda: wizard(3, 2, 1, variant={"rounds": "endless"}), "invalid_variant", "variant.rounds"),
        (lambda: wizard(3, 2, 1, variant={"speed": "fast"}), "unknown_variant_option", "variant.speed"),
        (
            lambda: game_body("tokaido", [player("a", 30, achievements=2), player("b", 20)]),
            "missing_field",
            "players.1.achievements",
        ),
        (
            lambda: game_body("tokaido", [player("a", 30, achievements=9), player("b", 20, achievements=1)]),
            "invalid_field",
            "players.0.achievements",
        ),
        (
            lambda: game_body("spades", [player(n, s) for n, s in zip("abcd", (300, 300, 100, 50), strict=True)]),
            "tie_not_allowed",
            None,
        ),
        (
            lambda: game_body("hanabi", [player("a", 20), player("b", 20)], variant={"deck": "hard"}),
            "variant_not_rated",
            "variant.deck",
        ),
    ],
)
def test_broken_game_rules_are_refused_with_their_code(api, body, code, path):
    response = api.post("/api/v1/games/", body(), format="json")
    assert response.status_code == 400, response.json()
    error = error_of(response)
    assert error["code"] == code
    if path:
        assert path in error["fields"]
    assert Game.objects.count() == 0 and Player.objects.count() == 0


def test_wizard_score_checked_against_details(api):
    # Three players, first two rounds of a standard game would be 20 rounds; use five_rounds: 5 rounds of 20.
    # Every round: a bids 20 takes 20 (+220), b and c bid 0 take 0 (+20 each). Totals 1100, 100, 100.
    rounds = [{"a": {"bid": 20, "tricks": 20}, "b": {"bid": 0, "tricks": 0}, "c": {"bid": 0, "tricks": 0}}] * 5
    good = game_body(
        "wizard",
        [player("a", 1100), player("b", 100), player("c", 100)],
        variant={"rounds": "five_rounds"},
        details={"rounds": rounds},
    )
    response = api.post("/api/v1/games/", good, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["places"] == {"a": 1, "b": 2, "c": 2}
    bad = game_body(
        "wizard",
        [player("a", 1000), player("b", 100), player("c", 100)],
        variant={"rounds": "five_rounds"},
        details={"rounds": rounds},
    )
    response = api.post("/api/v1/games/", bad, format="json")
    assert response.status_code == 400
    assert error_of(response)["code"] == "score_mismatch" and "players.0.score" in error_of(response)["fields"]


# ---------------------------------------------------------------- statuses and warnings


def test_unrated_solo_and_banned_games_are_recorded_unrated(api):
    unrated = api.post("/api/v1/games/", wizard(3, 2, 1, rated=False), format="json").json()
    solo = api.post("/api/v1/games/", game_body("railroad_ink", [player("solo", 40, errors=2)]), format="json")
    assert unrated["status"] == "unrated"
    assert solo.status_code == 201 and solo.json()["status"] == "unrated"
    Player.objects.filter(handle="p0").update(status=Player.Status.BANNED)
    banned = api.post("/api/v1/games/", wizard(3, 2, 1), format="json").json()
    assert banned["status"] == "unrated"
    assert Game.objects.get(pk=banned["id"]).status == Game.Status.UNRATED


def test_in_a_batch_only_the_banned_players_games_go_unrated(api):
    Player.objects.create(handle="cheat", status=Player.Status.BANNED)
    clean = game_body("wizard", [player("a", 30), player("b", 20), player("c", 10)])
    tainted = game_body("wizard", [player("a", 30), player("cheat", 20), player("c", 10)])
    results = api.post("/api/v1/games/batch/", {"games": [clean, tainted]}, format="json").json()["results"]
    assert [r["body"]["status"] for r in results] == ["pending", "unrated"]


def test_hanabi_hard_deck_is_recorded_when_unrated(api):
    body = game_body("hanabi", [player("a", 20), player("b", 20)], variant={"deck": "hard"}, rated=False)
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 201 and response.json()["places"] == {}


def test_same_ip_players_get_one_warning_per_address(api):
    body = game_body(
        "wizard",
        [
            player("ann", 9, ip="203.0.113.7"),
            player("ben", 8, ip="198.51.100.2"),
            player("cat", 7, ip="203.0.113.7"),
            player("dan", 6, ip="2001:db8:1:1::5"),
            player("eve", 5, ip="2001:db8:1:1:ffff::9"),  # same /64 as dan: one household
        ],
    )
    data = api.post("/api/v1/games/", body, format="json").json()
    assert data["warnings"] == [
        {"code": "same_ip", "players": ["ann", "cat"]},
        {"code": "same_ip", "players": ["dan", "eve"]},
    ]
    assert Game.objects.get(pk=data["id"]).same_ip is True


def test_raw_ips_and_devices_are_never_stored(api):
    body = game_body(
        "wizard", [player("ann", 9, ip="203.0.113.77", device="fp-secret-1"), player("ben", 8), player("cat", 7)]
    )
    game_id = api.post("/api/v1/games/", body, format="json").json()["id"]
    seat = Seat.objects.get(game_id=game_id, player__handle="ann")
    assert seat.ip_hash == hash_ip("203.0.113.77") and len(seat.ip_hash) == 64
    dumped = repr(list(Seat.objects.values())) + repr(list(Game.objects.values()))
    assert "203.0.113.77" not in dumped and "fp-secret-1" not in dumped


# ---------------------------------------------------------------- batch


def test_batch_each_game_succeeds_or_fails_alone(api):
    good = wizard(30, 20, 10)
    # The same players in another order mean the same game (a resend); rated: false is another game (a conflict).
    games = [good, {"game": "wizard"}, wizard(3, 2), dict(good, players=good["players"][::-1]), dict(good, rated=False)]
    response = api.post("/api/v1/games/batch/", {"games": games}, format="json")
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["index"] for r in results] == [0, 1, 2, 3, 4]
    assert [r["status_code"] for r in results] == [201, 400, 400, 200, 409]
    assert results[1]["body"]["error"]["code"] == "invalid_input"
    assert results[2]["body"]["error"]["code"] == "player_count"
    assert results[3]["body"]["id"] == results[0]["body"]["id"]
    assert results[4]["body"]["error"]["fields"] == {"rated": "Differs from the recorded game: true."}
    assert Game.objects.count() == 1


def test_batch_resent_is_all_200(api):
    games = [wizard(30, 20, 10) for _ in range(20)]
    first = api.post("/api/v1/games/batch/", {"games": games}, format="json").json()["results"]
    again = api.post("/api/v1/games/batch/", {"games": games}, format="json").json()["results"]
    assert {r["status_code"] for r in first} == {201} and {r["status_code"] for r in again} == {200}
    assert [r["body"]["id"] for r in first] == [r["body"]["id"] for r in again]
    assert Game.objects.count() == 20


@pytest.mark.parametrize("payload", [{}, {"games": []}, {"games": "x"}, [1, 2]])
def test_batch_envelope_must_be_a_list_of_games(api, payload):
    response = api.post("/api/v1/games/batch/", payload, format="json")
    assert response.status_code == 400 and error_of(response)["code"] == "invalid_input"


def test_batch_is_limited_to_500(api, settings):
    settings.GAMES_BATCH_MAX = 3
    response = api.post("/api/v1/games/batch/", {"games": [wizard(3, 2, 1) for _ in range(4)]}, format="json")
    assert response.status_code == 400 and "games" in error_of(response)["fields"]
    assert Game.objects.count() == 0


# ---------------------------------------------------------------- queries, pinned per backend

# Statements per request as Django logs them (hand-written ones included: infra.db logs them too), leaving out the
# SAVEPOINT/RELEASE pair into which this test's own transaction turns a call's BEGIN/COMMIT (never logged).
QUERIES = {
    "postgresql": {
        # the API key; the one recording statement (lock, create players, write); a banned player at the table
        # takes a second run of it (the first assumes nobody is)
        "single": {"known": 2, "new": 2, "banned": 3},
        # the API key; lock and create the players; write the games and seats
        "batch": {"known": 3, "new": 3, "banned": 3},
    },
    "sqlite": {
        # the API key; stored tables, players, games, seats (+ create and read new players); the status now,
        # since the embedded mode may have rated the games in-process on commit
        "single": {"known": 6, "new": 8, "banned": 6},
        "batch": {"known": 6, "new": 8, "banned": 6},
    },
}


def _statements(captured: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]


def _players(kind: str) -> None:
    if kind != "new":
        Player.objects.bulk_create([Player(handle=f"p{i}") for i in range(3)])
    if kind == "banned":
        Player.objects.filter(handle="p1").update(status=Player.Status.BANNED)


@pytest.mark.parametrize("players", ["known", "new", "banned"])
def test_a_single_post_takes_a_pinned_number_of_queries(api, players):
    _players(players)
    with CaptureQueriesContext(connection) as captured:
        response = api.post("/api/v1/games/", wizard(30, 20, 10), format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["status"] == ("unrated" if players == "banned" else "pending")
    statements = _statements(captured)
    assert len(statements) == QUERIES[connection.vendor]["single"][players], statements
    if connection.vendor == "postgresql":
        # One statement in autocommit, its own transaction: no BEGIN/COMMIT round trips around it.
        assert len(statements) == len(captured.captured_queries)


@pytest.mark.parametrize("players", ["known", "new", "banned"])
def test_a_batch_post_takes_the_same_queries_whatever_its_size(api, players):
    _players(players)
    counts = []
    for size in (2, 25):  # 25 games of 3 seats stay within one INSERT of SQLite's parameter limit
        with CaptureQueriesContext(connection) as captured:
            response = api.post(
                "/api/v1/games/batch/", {"games": [wizard(30, 20, 10) for _ in range(size)]}, format="json"
            )
        assert {r["status_code"] for r in response.json()["results"]} == {201}
        counts.append(len(_statements(captured)))
    expected = QUERIES[connection.vendor]["batch"]  # new players are known by the second batch: the first created them
    assert counts == [expected[players], expected["known" if players == "new" else players]], counts


# ---------------------------------------------------------------- schema and health


def test_schema_documents_the_game_endpoints(anon):
    response = anon.get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json()
    for route in ("/api/v1/games/", "/api/v1/games/batch/", "/api/v1/games/{game_id}/"):
        assert route in schema["paths"], route
    from arena.api.game_payload import COMMON_PLAYER_KEYS, TOP_LEVEL

    components = schema["components"]["schemas"]
    # One body per game, chosen by "game" (arena/api/contract.py), each naming every field the parser reads.
    mapping = components["GameInRequest"]["discriminator"]["mapping"]
    assert set(mapping) == {"wizard", "hanabi", "tokaido", "spades", "railroad_ink", "nile"}
    for ref in mapping.values():
        body = components[ref.rsplit("/", 1)[1]]
        assert set(body["properties"]) == TOP_LEVEL | {"tournament_table"}  # the door's (docs/tournaments.md)
        assert body["properties"]["tournament_table"]["type"] == ["integer", "null"]
        # team only in a game played in teams (issue 26 §3); the parser reads a team: null as left out.
        teams = ref.endswith(("_spades", "_hanabi"))
        assert set(body["properties"]["players"]["items"]["properties"]) >= COMMON_PLAYER_KEYS - (
            set() if teams else {"team"}
        )
    assert "achievements" in components["GameIn_tokaido"]["properties"]["players"]["items"]["required"]
    # The docs page's Authorize button needs the scheme, and each game endpoint must require it.
    assert schema["components"]["securitySchemes"]["ApiKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": "`Api-Key <key>` (or `Bearer <key>`, what generated clients send by default), the key "
        "printed once by `manage.py create_game_server NAME`.",
    }
    assert schema["paths"]["/api/v1/games/"]["post"]["security"] == [{"ApiKey": []}]


def test_unknown_api_paths_are_json_404s(api):
    response = api.get("/api/v1/games/-1/")
    assert response.status_code == 404 and response.json() == {
        "error": {"code": "not_found", "message": "No endpoint at /api/v1/games/-1/."}
    }
    # A POST missing its trailing slash cannot be redirected with its body: it is told the right path instead.
    response = api.post("/api/v1/games", {}, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "No endpoint at /api/v1/games. Did you mean /api/v1/games/ ?"
    assert Game.objects.count() == 0


def test_an_unexpected_failure_is_a_json_500_on_api_paths(api, monkeypatch, settings):
    def broken(**_):
        raise RuntimeError("boom")

    settings.DEBUG = False
    monkeypatch.setattr("doors.game_read.game_get_for_server", broken)
    api.raise_request_exception = False
    response = api.get("/api/v1/games/1/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "server_error"


@pytest.mark.django_db(transaction=True)  # outside a test transaction, so retry_transient does retry
def test_a_write_still_aborted_after_every_retry_is_a_503_busy_with_retry_after(api, monkeypatch):
    """The store raising the real transient class (what the PostgreSQL store raises when the rows it read keep
    changing) on every attempt: the API says busy, come back in a second, not 500, and nothing is written."""
    attempts = []

    def always_stale(self, **_):
        attempts.append(1)
        raise StaleRead("the players kept changing")

    store = type(recording_store())
    monkeypatch.setattr(store, "games_write", always_stale)
    response = api.post("/api/v1/games/", wizard(30, 20, 10), format="json")
    assert len(attempts) == RETRY_ATTEMPTS
    assert response.status_code == 503, response.content
    assert response["Retry-After"] == str(BUSY_RETRY_AFTER_SECONDS)
    assert response.json()["error"]["code"] == "busy"
    assert Game.objects.count() == 0


def test_docs_page_is_served(anon):
    assert anon.get("/api/docs/").status_code == 200


def test_health_endpoints(anon):
    assert anon.get("/healthz").json() == {"status": "ok"}
    ready = anon.get("/readyz")
    assert ready.status_code == 200 and ready.json()["checks"]["database"] == "ok"


def test_a_batch_envelope_with_an_unknown_field_is_refused_whole(api):
    response = api.post("/api/v1/games/batch/", {"games": [wizard(3, 2, 1)], "gmaes": []}, format="json")
    assert response.status_code == 400
    assert error_of(response)["fields"] == {"gmaes": "Unknown field."}
    assert Game.objects.count() == 0
