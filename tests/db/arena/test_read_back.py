"""Issue 26 §2: games read back as recorded, found by the server's own table id or listed since a time (cursor),
tickets listed with their formed table's game, a report's description echoed, Location on every 201 and the
RateLimit headers on successful answers (docs/api.md, "Reading games back", "Reading tickets back", "Limits")."""

from __future__ import annotations

import pytest

from tests.conftest import game_body, player

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = "/api/v1/games/"
TICKETS = "/api/v1/matchmaking/tickets/"


def _tokaido(table_id: str, finished_at: str) -> dict:
    return game_body(
        "tokaido",
        [player("alice", 61, achievements=3), player("bob", 40, achievements=1)],
        table_id=table_id,
        finished_at=finished_at,
        variant={},
    )


@pytest.fixture(autouse=True)
def _embedded(embedded_mode):
    """Rated on commit, as scripts/run does: the read shows its rating changes."""


def test_a_game_reads_back_as_recorded_with_its_location(api):
    created = api.post(GAMES, _tokaido("W-1", "2026-11-29T13:00:00+01:00"), format="json")
    assert created.status_code == 201
    assert created["Location"] == f"{GAMES}{created.json()['id']}/"
    read = api.get(created["Location"]).json()
    assert read["table_id"] == "W-1" and read["game"] == "tokaido" and read["status"] == "rated"
    assert read["finished_at"] == "2026-11-29T12:00:00Z"  # the instant sent, written in UTC with Z
    assert read["variant"] == {} and read["details"] == {}
    # Tokaido has no teams: no team key at all (issue 26 §3), places 1 and 2 from the scores.
    assert read["players"] == [
        {"player": "alice", "score": 61, "place": 1, "quit": False, "achievements": 3},
        {"player": "bob", "score": 40, "place": 2, "quit": False, "achievements": 1},
    ]
    # Two new players at K 60, one duel of two sides: +-60 x (1 - 0.5) = +-30 (docs/ratings.md).
    assert {c["player"]: c["delta"] for c in read["rating_changes"]} == {"alice": 30.0, "bob": -30.0}
    assert api.post(GAMES, _tokaido("W-1", "2026-11-29T12:00:00Z"), format="json").has_header("Location") is False


def test_a_cooperative_game_shows_its_team_and_no_places(api):
    body = game_body("hanabi", [player("h1", 20, team="t"), player("h2", 20, team="t")], rated=False)
    game = api.post(GAMES, body, format="json").json()
    read = api.get(f"{GAMES}{game['id']}/").json()
    assert [p.get("place", "absent") for p in read["players"]] == ["absent", "absent"]
    assert [p["team"] for p in read["players"]] == ["t", "t"]


def test_found_by_table_id_and_listed_since_a_time_oldest_first_by_cursor(api, other_api):
    times = ["2026-11-29T10:00:00Z", "2026-11-29T09:00:00Z", "2026-11-29T11:00:00Z", "2026-11-28T08:00:00Z"]
    ids = {}
    for n, at in enumerate(times):
        ids[at] = api.post(GAMES, _tokaido(f"W-{n}", at), format="json").json()["id"]
    other_api.post(GAMES, _tokaido("W-0", "2026-11-29T10:30:00Z"), format="json")  # another server's W-0
    (found,) = api.get(GAMES, {"table_id": "W-0"}).json()["games"]
    assert found["id"] == ids["2026-11-29T10:00:00Z"]
    assert api.get(GAMES, {"table_id": "W-9"}).json() == {"games": [], "next": None}
    first = api.get(GAMES, {"since": "2026-11-29T00:00:00Z", "limit": 2}).json()
    assert [g["finished_at"] for g in first["games"]] == ["2026-11-29T09:00:00Z", "2026-11-29T10:00:00Z"]
    rest = api.get(GAMES, {"since": "2026-11-29T00:00:00Z", "limit": 2, "cursor": first["next"]}).json()
    assert [g["finished_at"] for g in rest["games"]] == ["2026-11-29T11:00:00Z"] and rest["next"] is None
    assert api.get(GAMES, {"since": "yesterday"}).json()["error"]["fields"] == {
        "since": "Must be ISO 8601 with a timezone, e.g. 2026-12-01T00:00:00Z."
    }
    assert api.get(GAMES, {"since": "2026-11-29T00:00:00"}).status_code == 400  # no timezone: ambiguous
    assert api.get(GAMES, {"cursor": "garbage"}).status_code == 400


@pytest.fixture
def other_api(db):
    from rest_framework.test import APIClient

    from arena.servers import game_server_create

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {game_server_create(name='read-back-other').key}")
    return client


def test_tickets_list_by_status_and_a_formed_table_links_to_its_recorded_game(api):
    lone = api.post(TICKETS, {"player": "w1", "ip": "203.0.113.1", "game": "wizard"}, format="json")
    assert lone.status_code == 201 and lone["Location"] == f"{TICKETS}{lone.json()['id']}/"
    four = [
        api.post(TICKETS, {"player": n, "ip": f"198.51.100.{i}", "game": "tokaido"}, format="json").json()
        for i, n in enumerate(("t1", "t2", "t3", "t4"), 1)
    ]
    assert four[-1]["status"] == "matched", four[-1]
    waiting = api.get(TICKETS, {"status": "waiting"}).json()
    assert [t["id"] for t in waiting["tickets"]] == [lone.json()["id"]] and waiting["next"] is None
    shown = waiting["tickets"][0]["waiting"]
    assert shown["elo_tolerance"] == pytest.approx(150 + 10 * shown["seconds"], abs=1e-9)  # agree as shown
    (matched, *_) = [t for t in api.get(TICKETS, {"status": "matched"}).json()["tickets"]]
    assert matched["recorded_game"] is None  # no game yet
    table = matched["table"]
    seated = [player(n, 50 - i, achievements=1) for i, n in enumerate(("t1", "t2", "t3", "t4"))]
    game = api.post(GAMES, game_body("tokaido", seated, table_id=table["id"]), format="json").json()
    linked = api.get(TICKETS, {"status": "matched"}).json()["tickets"]
    assert {t["recorded_game"]["id"] for t in linked} == {game["id"]}
    assert linked[0]["recorded_game"]["url"] == f"{GAMES}{game['id']}/"
    assert api.get(f"{TICKETS}{four[0]['id']}/").json()["recorded_game"]["id"] == game["id"]
    assert api.get(TICKETS, {"status": "lost"}).status_code == 400


def test_a_fresh_ticket_shows_the_tolerance_of_the_seconds_it_shows(api):
    body = api.post(TICKETS, {"player": "fresh", "ip": "203.0.113.77", "game": "nile"}, format="json").json()
    wait = body["waiting"]
    assert wait["elo_tolerance"] == round(150 + 10 * wait["seconds"], 1)
    assert wait["expires_in"] == round(600 - wait["seconds"], 1)


def test_a_reports_get_echoes_its_description_and_its_201_its_location(api):
    api.post(GAMES, _tokaido("R-1", "2026-11-29T12:00:00Z"), format="json")
    filed = api.post(
        "/api/v1/reports/",
        {"reporter": "alice", "accused": "bob", "reason": "other", "description": "Rude in the chat."},
        format="json",
    )
    assert filed.status_code == 201 and filed["Location"] == f"/api/v1/reports/{filed.json()['id']}/"
    assert api.get(filed["Location"]).json()["description"] == "Rude in the chat."


def test_successful_answers_carry_the_ratelimit_headers(api, anon, settings):
    settings.API_WRITE_THROTTLE_RATE = "100/min"
    first = api.post(GAMES, _tokaido("L-1", "2026-11-29T12:00:00Z"), format="json")
    second = api.post(GAMES, _tokaido("L-2", "2026-11-29T12:00:00Z"), format="json")
    assert first.status_code == second.status_code == 201
    assert first["RateLimit-Policy"] == second["RateLimit-Policy"] == '"write";q=100;w=60'
    remaining = [int(r["RateLimit"].split(";r=")[1].split(";")[0]) for r in (first, second)]
    assert remaining[0] - remaining[1] == 1 and remaining[1] <= 98
    seconds = int(second["RateLimit"].rsplit(";t=", 1)[1])
    assert 0 <= seconds <= 60
    page = anon.get("/api/v1/players/alice/")
    assert page.status_code == 200 and page["RateLimit-Policy"].startswith('"public";q=')
    assert not api.get(f"{GAMES}{first.json()['id']}/").has_header("RateLimit")  # a key's read: no limit applies
