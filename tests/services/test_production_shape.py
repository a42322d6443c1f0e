"""The smoke test of the production shape, run by CI: ``scripts/serve`` as a site starts it (gunicorn, every
worker, one beat, DEBUG=false), used over HTTP as game servers and players would, then stopped with SIGTERM.

Expected values by hand (docs/ratings.md): five Tokaido games, a beats b each time, both new (K 60, two players
P(2) = 1): a 1530.0000, 1554.8701, 1575.6974, 1593.3940, 1608.6584; b = 3000 - a = 1391.3416 (the same games
as tests/services/test_worker_board.py). The table: a ticket of three friends and a lone player make four, the
recommended size of Tokaido, so the first pass seats them and the table is pushed to the server's callback.
"""

from __future__ import annotations

import time

import httpx
import pytest

from arena.servers import game_server_create
from matchmaking.models import ServerCallback
from tests.db.matchmaking.receiver import receiver
from tests.db.ratings.helpers import ensure_hanabot_table
from tests.services.shape import Shape

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def shape(transactional_db, redis_conn, tmp_path):
    ensure_hanabot_table()
    running = Shape(tmp_path)
    running.start()
    yield running
    running.kill()


def duel(table: str, winner: str, loser: str) -> dict:
    return {
        "table_id": table,
        "game": "tokaido",
        "players": [
            {"player": winner, "ip": "2001:db8:1::1", "score": 40, "achievements": 1},
            {"player": loser, "ip": "2001:db8:2::1", "score": 30, "achievements": 1},
        ],
    }


def poll(check, timeout: float = 60.0, every: float = 0.25):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (found := check()) is not None:
            return found
        time.sleep(every)
    raise AssertionError("timed out")


def test_the_shape_records_rates_matches_pushes_serves_and_stops(shape: Shape):
    issued = game_server_create(name="smoke")
    http = httpx.Client(base_url=shape.url, headers={"Authorization": f"Api-Key {issued.key}"}, timeout=10)
    anon = httpx.Client(base_url=shape.url, timeout=10)

    # Records games and sees them rated (by the elo worker, woken by the recording's commit).
    ids = []
    for number in range(5):
        response = http.post("/api/v1/games/", json=duel(f"smoke-{number}", "a", "b"))
        assert response.status_code == 201, response.text
        ids.append(response.json()["id"])

    def rated():
        body = http.get(f"/api/v1/games/{ids[-1]}/").json()
        return body if body["status"] == "rated" else None

    assert {c["player"]: c["after"] for c in poll(rated)["rating_changes"]} == pytest.approx(
        {"a": 1608.66, "b": 1391.34}, abs=1e-9
    )  # rounded to 2 places by the API

    # Two tickets matched (three friends + one) and the table pushed to a local receiver.
    with receiver() as local:
        ServerCallback.objects.create(server=issued.server, url=local.url)
        friends = http.post(
            "/api/v1/matchmaking/tickets/",
            json={
                "player": "c",
                "ip": "2001:db8:3::1",
                "game": "tokaido",
                "min_players": 2,
                "max_players": 4,
                "party": [{"player": "d", "ip": "2001:db8:4::1"}, {"player": "e", "ip": "2001:db8:5::1"}],
            },
        )
        lone = http.post(
            "/api/v1/matchmaking/tickets/",
            json={"player": "f", "ip": "2001:db8:6::1", "game": "tokaido", "min_players": 2, "max_players": 4},
        )
        assert (friends.status_code, lone.status_code) == (201, 201), (friends.text, lone.text)

        def matched():
            body = http.get(f"/api/v1/matchmaking/tickets/{lone.json()['id']}/").json()
            return body if body["status"] == "matched" else None

        table = poll(matched)["table"]
        assert sorted(table["players"]) == ["c", "d", "e", "f"]
        pushes = local.wait_for(1, timeout=30)
        assert len(pushes) == 1, "no push reached the receiver"
        assert pushes[0].json["type"] == "table.formed" == pushes[0].headers["Arena-Event"]
        pushed = pushes[0].json["data"]  # the event envelope's data (docs/api.md, "Events")
        assert pushed["table"]["id"] == table["id"]
        assert sorted(t["id"] for t in pushed["tickets"]) == sorted([friends.json()["id"], lone.json()["id"]])
        assert pushes[0].headers["X-Arena-Signature"].startswith("t=")

    # Reads a leaderboard (the public read, no key).
    def board():
        body = anon.get("/api/v1/leaderboards/tokaido/").json()
        return body if body.get("total") == 2 else None

    entries = poll(board)["entries"]
    assert [(e["rank"], e["player"], e["elo"], e["games"]) for e in entries] == [
        (1, "a", 1608.66, 5),
        (2, "b", 1391.34, 5),
    ]

    # Stops it: SIGTERM, every process gone.
    running = shape.survivors()
    assert len(running) >= 8, running  # honcho, gunicorn master and worker, five workers and beat (and children)
    code, took, statuses = shape.stop()
    assert shape.survivors() == []
    assert set(statuses) == {"web", "elo", "trueskill", "matchmaking", "pushes", "detection", "beat"}, statuses
    assert set(statuses.values()) == {0}, statuses  # each process stopped on its own, none killed
    print(f"\nstopped in {took:.1f} s; honcho {code}; processes {statuses}")
