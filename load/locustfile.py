"""A site's mix against Arena, for locust (``scripts/load MINUTES`` runs it headless; ``locust -f`` works too).

- Game servers post single games and batches (5-50) of every title, resend 2 % of what they posted (the stored
  game comes back, 200) and send a few conflicting bodies (same table, another body: 409 ``table_conflict``).
- Public readers read leaderboards (pages and ``around=``), player pages and rating history.
- Matchmaking clients open tickets (15 % with a party), poll them, cancel some and update preferences.

Every game a game server got accepted is kept in ``ACCEPTED`` (so the runner can check the end state exactly);
a POST that gets no answer is sent again with the same body until it is answered, so nothing sent is unknown.
Any 5xx is a failure. ``ARENA_LOAD_KEY`` is the game server's key, ``ARENA_LOAD_RATE`` the target total
requests per second (spread over the users by ``constant_throughput``).
"""

from __future__ import annotations

import copy
import itertools
import os
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

from locust import HttpUser, constant_throughput, task

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.db.ratings.bodies import TITLES, random_bodies
from tests.faults.clients import recent

KEY = os.environ.get("ARENA_LOAD_KEY", "")
RATE = float(os.environ.get("ARENA_LOAD_RATE", "60"))
USERS = int(os.environ.get("ARENA_LOAD_USERS", "30"))
# The read pool's address (the Procfile's `web-read`); empty: public reads go to `web` like everything else.
READ_URL = os.environ.get("ARENA_LOAD_READ_URL", "")
POOL = 400  # players of the game servers' games
BOARDS = [t for t in TITLES if t != "hanabi"]
HANDLES = [f"p{i}" for i in range(POOL)]

ACCEPTED: dict[str, tuple[dict[str, Any], int]] = {}
TIMES: dict[str, tuple[float, float]] = {}  # table id -> (first sent, first answered), time.monotonic()
_lock = threading.Lock()
# Requests that got no answer (a keep-alive connection the server had just closed) and were sent again and
# answered: reported, not failures, as long as the retry was answered.
RETRIED = {"count": 0}
_tickets = itertools.count(1)
_rnd = random.Random(int(os.environ.get("ARENA_LOAD_SEED", "16")))


def _accept(body: dict[str, Any], game_id: int, sent: float) -> None:
    with _lock:
        ACCEPTED.setdefault(body["table_id"], (body, game_id))
        TIMES.setdefault(body["table_id"], (sent, time.monotonic()))


def accepted_spec() -> list[list[Any]]:
    """What tests/faults/check.py takes: [table id, body, id, first sent, first answered]."""
    with _lock:
        return [[t, body, pk, *TIMES[t]] for t, (body, pk) in ACCEPTED.items()]


def _bodies(rnd: random.Random, count: int) -> list[dict[str, Any]]:
    with _lock:  # the table id counter in bodies.py is shared
        return recent(random_bodies(rnd, count, pool=POOL), rnd)


def _sample(rnd: random.Random) -> tuple[dict[str, Any], int] | None:
    with _lock:
        if not ACCEPTED:
            return None
        return ACCEPTED[rnd.choice(list(ACCEPTED))]


class ArenaUser(HttpUser):
    abstract = True
    # Each user's share of the target rate (the runner sets it again for each step of a capacity run).
    wait_time = constant_throughput(RATE / max(1, USERS))

    def on_start(self) -> None:
        self.rnd = random.Random(_rnd.randrange(1 << 30))
        self.client.headers["Authorization"] = f"Api-Key {KEY or os.environ.get('ARENA_LOAD_KEY', '')}"

    def post_until_answered(self, path: str, body: Any, name: str, expect: set[int]) -> Any:
        """POST, sent again with the same body while there is no answer (it never changes what is recorded)."""
        for _ in range(20):
            with self.client.post(path, json=body, name=name, catch_response=True) as response:
                if response.status_code == 0:
                    response.failure(f"no answer (sent again): {response.error}")
                    RETRIED["count"] += 1
                    continue
                if response.status_code in expect:
                    response.success()
                    return response
                response.failure(f"{response.status_code}: {response.text[:200]}")
                if response.status_code < 500:
                    return response
        return None


class GameServer(ArenaUser):
    weight = 3

    @task(40)
    def single(self) -> None:
        body = _bodies(self.rnd, 1)[0]
        sent = time.monotonic()
        response = self.post_until_answered("/api/v1/games/", body, "POST /games/ single", {200, 201})
        if response is not None and response.status_code in (200, 201):
            _accept(body, response.json()["id"], sent)

    @task(8)
    def batch(self) -> None:
        bodies = _bodies(self.rnd, self.rnd.randint(5, 50))
        sent = time.monotonic()
        response = self.post_until_answered("/api/v1/games/batch/", {"games": bodies}, "POST /games/batch/", {200})
        if response is None or response.status_code != 200:
            return
        for result in response.json()["results"]:
            if result["status_code"] in (200, 201):
                _accept(bodies[result["index"]], result["body"]["id"], sent)

    @task(1)
    def resend(self) -> None:  # 1 in 49 game-server requests: ~2 %
        known = _sample(self.rnd)
        if known is not None:
            response = self.post_until_answered("/api/v1/games/", known[0], "POST /games/ resend", {200})
            if response is not None and response.status_code == 200 and response.json()["id"] != known[1]:
                response.failure("a resend answered with another game")

    @task(1)
    def conflict(self) -> None:
        known = _sample(self.rnd)
        if known is None or self.rnd.random() > 0.3:
            return
        body = copy.deepcopy(known[0])
        body["rated"] = not body.get("rated", True)
        self.post_until_answered("/api/v1/games/", body, "POST /games/ conflict", {409})


class PublicReader(ArenaUser):
    weight = 5

    def on_start(self) -> None:
        super().on_start()
        if READ_URL:  # the read pool, as a proxy routes public GETs (docs/scaling.md)
            self.client.base_url = READ_URL

    def get(self, path: str, name: str, params: dict[str, Any] | None = None, ok: tuple[int, ...] = (200,)) -> None:
        for _ in range(3):
            with self.client.get(path, params=params, name=name, catch_response=True) as response:
                if response.status_code == 0:  # as for POSTs: a closed keep-alive connection, sent again
                    response.failure(f"no answer (sent again): {response.error}")
                    RETRIED["count"] += 1
                    continue
                if response.status_code in ok:
                    response.success()
                else:
                    response.failure(f"{response.status_code}: {response.text[:200]}")
                return

    @task(5)
    def leaderboard(self) -> None:
        self.get(
            f"/api/v1/leaderboards/{self.rnd.choice(BOARDS)}/",
            "GET /leaderboards/{game}/",
            {"limit": 50, "offset": self.rnd.choice([0, 0, 50, 100])},
        )

    @task(3)
    def around(self) -> None:
        # A player not (yet) ranked is a documented 404 (player_not_found / player_not_ranked).
        self.get(
            f"/api/v1/leaderboards/{self.rnd.choice(BOARDS)}/",
            "GET /leaderboards/{game}/?around=",
            {"around": self.rnd.choice(HANDLES)},
            ok=(200, 404),
        )

    @task(3)
    def player(self) -> None:
        self.get(f"/api/v1/players/{self.rnd.choice(HANDLES)}/", "GET /players/{player}/", ok=(200, 404))

    @task(2)
    def history(self) -> None:
        self.get(
            f"/api/v1/players/{self.rnd.choice(HANDLES)}/history/{self.rnd.choice(TITLES)}/",
            "GET /players/{player}/history/{game}/",
            {"limit": 20},
            ok=(200, 404),
        )


class Matchmaking(ArenaUser):
    weight = 1

    def on_start(self) -> None:
        super().on_start()
        self.open: list[str] = []

    def _ip(self) -> str:
        return f"198.51.{self.rnd.randrange(4)}.{self.rnd.randrange(250)}"

    @task(4)
    def create(self, n: int | None = None) -> None:
        n = next(_tickets) if n is None else n
        party = [{"player": f"q{n}b", "ip": self._ip()}] if self.rnd.random() < 0.15 else []
        body = {
            "player": f"q{n}",
            "ip": self._ip(),
            "party": party,
            "game": self.rnd.choice(["tokaido", "hanabi"]),
            "min_players": 2,
            "max_players": self.rnd.choice([4, 5]),
            "request_id": f"load-{n}",
        }
        response = self.post_until_answered(
            "/api/v1/matchmaking/tickets/", body, "POST /matchmaking/tickets/", {200, 201}
        )
        if response is not None and response.status_code in (200, 201):
            self.open.append(response.json()["id"])

    @task(4)
    def poll(self) -> None:
        if self.open:
            ticket = self.rnd.choice(self.open)
            with self.client.get(
                f"/api/v1/matchmaking/tickets/{ticket}/", name="GET /matchmaking/tickets/{id}/", catch_response=True
            ) as response:
                if response.status_code == 200:
                    response.success()
                    if response.json()["status"] != "waiting":
                        self.open.remove(ticket)
                else:
                    response.failure(f"{response.status_code}: {response.text[:200]}")

    @task(1)
    def cancel(self) -> None:
        if self.open:
            ticket = self.open.pop(self.rnd.randrange(len(self.open)))
            with self.client.delete(
                f"/api/v1/matchmaking/tickets/{ticket}/", name="DELETE /matchmaking/tickets/{id}/", catch_response=True
            ) as response:
                # 409: it was matched (or expired) in the meantime, which is the documented answer.
                if response.status_code in (200, 204, 409):
                    response.success()
                else:
                    response.failure(f"{response.status_code}: {response.text[:200]}")

    @task(1)
    def preferences(self) -> None:
        """A player sets preferences, then queues: they hold from before the ticket, so the end-state judge
        (which reads the preferences as they are at the end) judges every table by the ones its pass saw."""
        n = next(_tickets)
        body = {
            "refuse_same_ip": self.rnd.random() < 0.5,
            "blocked": [f"q{self.rnd.randint(1, n - 1)}"] if n > 1 else [],
        }  # never themself
        with self.client.put(
            f"/api/v1/players/q{n}/preferences/",
            json=body,
            name="PUT /players/{player}/preferences/",
            catch_response=True,
        ) as response:
            if response.status_code == 200:
                response.success()
            else:
                response.failure(f"{response.status_code}: {response.text[:200]}")
                return
        self.create(n)
