"""Run by test_read_replica.py in its own process, with DATABASE_URL (a private primary) and DATABASE_REPLICA_URL
(its streaming replica) set: records games as a game server would and reads the public pages, printing one JSON
object of what it saw. ``seed`` runs with the replica up, ``fallback`` after the test stopped it."""

from __future__ import annotations

import json
import os
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

import psycopg  # noqa: E402
from django.db import connections  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from arena.models import Player  # noqa: E402
from arena.servers import game_server_create  # noqa: E402
from ratings.models import Rating  # noqa: E402

PRIMARY, REPLICA = os.environ["DATABASE_URL"], os.environ["DATABASE_REPLICA_URL"]


def duel(table: str, winner: str, loser: str, ip: int) -> dict:
    return {
        "table_id": table,
        "game": "tokaido",
        "players": [
            {"player": winner, "ip": f"2001:db8:{ip}::1", "score": 40, "achievements": 0},
            {"player": loser, "ip": f"2001:db8:{ip + 1}::1", "score": 30, "achievements": 0},
        ],
    }


def caught_up() -> None:
    with psycopg.connect(PRIMARY, autocommit=True) as p, psycopg.connect(REPLICA, autocommit=True) as r:
        lsn = p.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        for _ in range(300):
            if r.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [lsn]).fetchone()[0]:
                return
            time.sleep(0.1)
    raise SystemExit("replica did not catch up")


def replay(paused: bool) -> None:
    with psycopg.connect(REPLICA, autocommit=True) as r:
        r.execute("SELECT pg_wal_replay_pause()" if paused else "SELECT pg_wal_replay_resume()")


def public(client: APIClient) -> dict:
    """The three public reads, each with its status and the figure that tells which copy answered."""
    out = {}
    started = time.monotonic()
    alice = client.get("/api/v1/players/alice/")
    out["alice_status"] = alice.status_code
    out["alice_games"] = alice.json()["ratings"]["tokaido"]["games"] if alice.status_code == 200 else None
    history = client.get("/api/v1/players/alice/history/tokaido/?limit=200")
    out["history_entries"] = len(history.json()["entries"]) if history.status_code == 200 else None
    board = client.get("/api/v1/leaderboards/tokaido/")
    out["board_status"] = board.status_code
    out["board_alice_games"] = next((e["games"] for e in board.json()["entries"] if e["player"] == "alice"), None)
    out["carol_status"] = client.get("/api/v1/players/carol/").status_code
    out["seconds"] = round(time.monotonic() - started, 3)
    replica = connections["replica"].connection
    out["replica_connected_port"] = replica.info.port if replica is not None and not replica.closed else None
    return out


def seed() -> dict:
    server = APIClient()
    server.credentials(HTTP_AUTHORIZATION=f"Api-Key {game_server_create(name='replica-probe').key}")
    for i in range(5):
        assert server.post("/api/v1/games/", duel(f"T-{i}", "alice", "bob", 2 * i), format="json").status_code == 201
    caught_up()
    seen: dict = {"caught_up": public(APIClient())}
    replay(paused=True)
    try:
        created = server.post("/api/v1/games/", duel("T-carol", "alice", "carol", 100), format="json")
        assert created.status_code == 201, created.content
        # The game server's own read: the primary, so it sees the game it just recorded.
        seen["own_read_status"] = server.get(f"/api/v1/games/{created.json()['id']}/").status_code
        seen["primary_alice_games"] = Rating.objects.get(player__handle="alice", title="tokaido").games
        seen["primary_has_carol"] = Player.objects.filter(handle="carol").exists()
        seen["paused"] = public(APIClient())
    finally:
        replay(paused=False)
    caught_up()
    seen["resumed"] = public(APIClient())
    return seen


def fallback() -> dict:
    first = public(APIClient())
    second = public(APIClient())  # the replica is remembered as down: no new connection attempt
    return {"first": first, "second": second}


if __name__ == "__main__":
    print(json.dumps(seed() if sys.argv[1] == "seed" else fallback()))
