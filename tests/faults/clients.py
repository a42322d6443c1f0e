"""Game servers as threads: they post random games of every title (singles, batches, resends, a few conflicting
bodies) and tickets, and log every answer, so a test can say what the site answered while a fault lasted.

The only failure a client tolerates is the documented retryable one, 503 with ``Retry-After``: it then sends the
same request again (recording and tickets are idempotent by table id and request id) until it is accepted, so
at the end every body a client ever sent has been accepted exactly once and the test knows all of them.
"""

from __future__ import annotations

import copy
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import requests

from tests.db.ratings.bodies import random_bodies

RETRY_CAP = 1.0  # seconds: a client honours Retry-After but never sleeps longer than this between tries
TIMEOUT = 30.0


@dataclass(frozen=True)
class Answer:
    at: float  # time.monotonic() when the answer came
    what: str  # "single", "batch", "resend", "conflict", "ticket", "poll", "cancel"
    status: int | None  # None: no HTTP answer at all (refused, reset, timed out)
    retry_after: str | None
    ok: bool  # the answer this request should get
    note: str = ""


@dataclass
class Log:
    answers: list[Answer] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, answer: Answer) -> None:
        with self.lock:
            self.answers.append(answer)

    def bad(self, since: float = 0.0) -> list[Answer]:
        """Answers that were neither the right one nor a 503 with Retry-After."""
        return [a for a in self.answers if a.at >= since and not a.ok and not (a.status == 503 and a.retry_after)]

    def retryable(self) -> int:
        return sum(1 for a in self.answers if a.status == 503 and a.retry_after)


def recent(bodies: list[dict[str, Any]], rnd: random.Random) -> list[dict[str, Any]]:
    """The bodies with a finished_at in the last 30 days, so their players reach the leaderboards."""
    now = datetime.now(UTC)
    for body in bodies:
        moment = now - timedelta(minutes=rnd.randint(5, 30 * 24 * 60))
        body["finished_at"] = moment.isoformat().replace("+00:00", "Z")
    return bodies


class Site:
    """One game server's HTTP session with the site (keep-alive, its key)."""

    def __init__(self, url: str, key: str, log: Log):
        self.url, self.log = url, log
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Api-Key {key}"

    def call(self, what: str, method: str, path: str, expect: set[int], **kwargs: Any) -> requests.Response | None:
        """One request until it gets an answer other than 503-with-Retry-After; every answer logged."""
        while True:
            try:
                response = self.http.request(method, self.url + path, timeout=TIMEOUT, **kwargs)
            except requests.RequestException as exc:
                self.log.add(Answer(time.monotonic(), what, None, None, False, type(exc).__name__))
                time.sleep(0.5)
                continue
            retry_after = response.headers.get("Retry-After")
            ok = response.status_code in expect
            note = "" if ok else response.text[:300]
            self.log.add(Answer(time.monotonic(), what, response.status_code, retry_after, ok, note))
            if response.status_code == 503 and retry_after:
                time.sleep(min(RETRY_CAP, float(retry_after)))
                continue
            if response.status_code >= 500:
                time.sleep(0.5)  # logged as bad; the same request again, so nothing it carried is lost
                continue
            return response


@dataclass
class Accepted:
    """Every game a client got accepted: table id -> (the body, the id Arena gave it); and when it was first sent
    and first answered (time.monotonic()), so the check can hold Arena's rating order to real time."""

    games: dict[str, tuple[dict[str, Any], int]] = field(default_factory=dict)
    times: dict[str, tuple[float, float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    doubled: list[str] = field(default_factory=list)

    def add(self, body: dict[str, Any], game_id: int, sent: float = 0.0, answered: float = 0.0) -> None:
        with self.lock:
            known = self.games.get(body["table_id"])
            if known is not None and known[1] != game_id:
                self.doubled.append(body["table_id"])
            self.games.setdefault(body["table_id"], (body, game_id))
            self.times.setdefault(body["table_id"], (sent, answered or time.monotonic()))

    def spec(self) -> list[list[Any]]:
        """What tests/faults/check.py takes: [table id, body, id, first sent, first answered]."""
        with self.lock:
            return [[t, body, pk, *self.times[t]] for t, (body, pk) in self.games.items()]

    def sample(self, rnd: random.Random) -> tuple[dict[str, Any], int] | None:
        with self.lock:
            if not self.games:
                return None
            return self.games[rnd.choice(list(self.games))]


class GameClient(threading.Thread):
    """Posts games until stopped: 60 % singles, 30 % batches of 2-20, ~8 % resends, ~2 % conflicting bodies."""

    def __init__(
        self,
        site: Site,
        accepted: Accepted,
        seed: int,
        stop: threading.Event,
        *,
        pool: int = 40,
        pause: float = 0.05,
        extra_handles: tuple[str, ...] = (),
    ):
        super().__init__(daemon=True)
        self.site, self.accepted, self.stop = site, accepted, stop
        self.rnd = random.Random(seed)
        self.pool, self.pause, self.extra = pool, pause, extra_handles
        self.failure: BaseException | None = None

    def bodies(self, count: int) -> list[dict[str, Any]]:
        out = recent(random_bodies(self.rnd, count, pool=self.pool), self.rnd)
        for body in out:  # a few games with the extra players (the one a moderator will ban)
            if self.extra and self.rnd.random() < 0.15 and len(body["players"]) > 1:
                seat = self.rnd.randrange(len(body["players"]))
                if body["players"][seat]["player"] not in self.extra and not any(
                    p["player"] in self.extra for p in body["players"]
                ):
                    body["players"][seat]["player"] = self.rnd.choice(self.extra)
        return out

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                roll = self.rnd.random()
                if roll < 0.60:
                    self.single()
                elif roll < 0.90:
                    self.batch()
                elif roll < 0.98:
                    self.resend()
                else:
                    self.conflict()
                time.sleep(self.rnd.uniform(0, self.pause))
        except BaseException as exc:  # surfaced by the test
            self.failure = exc

    def single(self) -> None:
        body = self.bodies(1)[0]
        sent = time.monotonic()
        response = self.site.call("single", "POST", "/api/v1/games/", {201}, json=body)
        if response is not None and response.status_code == 201:
            self.accepted.add(body, response.json()["id"], sent)
        elif response is not None and response.status_code == 200:
            # A retry after a lost answer: the first try was recorded; the stored game is returned.
            self.accepted.add(body, response.json()["id"], sent)

    def batch(self) -> None:
        bodies = self.bodies(self.rnd.randint(2, 20))
        sent = time.monotonic()
        response = self.site.call("batch", "POST", "/api/v1/games/batch/", {200}, json={"games": bodies})
        if response is None or response.status_code != 200:
            return
        for result in response.json()["results"]:
            body = bodies[result["index"]]
            if result["status_code"] in (200, 201):
                self.accepted.add(body, result["body"]["id"], sent)
            else:
                self.site.log.add(
                    Answer(
                        time.monotonic(), "batch-item", result["status_code"], None, False, str(result["body"])[:300]
                    )
                )

    def resend(self) -> None:
        known = self.accepted.sample(self.rnd)
        if known is None:
            return
        body, game_id = known
        response = self.site.call("resend", "POST", "/api/v1/games/", {200}, json=body)
        if response is not None and response.status_code == 200 and response.json()["id"] != game_id:
            self.site.log.add(Answer(time.monotonic(), "resend", 200, None, False, "another id for a resend"))

    def conflict(self) -> None:
        known = self.accepted.sample(self.rnd)
        if known is None:
            return
        body = copy.deepcopy(known[0])
        body["players"] = list(reversed(body["players"]))
        body["rated"] = not body.get("rated", True)
        response = self.site.call("conflict", "POST", "/api/v1/games/", {409}, json=body)
        if response is not None and response.status_code == 409:
            code = response.json()["error"]["code"]
            if code != "table_conflict":
                self.site.log.add(Answer(time.monotonic(), "conflict", 409, None, False, code))


class TicketClient(threading.Thread):
    """Opens tickets (lone players and parties of two), polls some, cancels a few, until stopped."""

    def __init__(self, site: Site, seed: int, stop: threading.Event, handles: list[str], *, pause: float = 0.05):
        super().__init__(daemon=True)
        self.site, self.stop = site, stop
        self.rnd = random.Random(seed)
        self.free = list(handles)
        self.opened: dict[str, dict[str, Any]] = {}  # ticket id -> body
        self.cancelled: set[str] = set()
        self.failure: BaseException | None = None
        self.pause = pause

    def run(self) -> None:
        try:
            while not self.stop.is_set() and self.free:
                self.open()
                if self.opened and self.rnd.random() < 0.3:
                    self.poll()
                if self.opened and self.rnd.random() < 0.05:
                    self.cancel()
                time.sleep(self.rnd.uniform(0, self.pause))
        except BaseException as exc:
            self.failure = exc

    def _ip(self) -> str:
        return f"198.51.{self.rnd.randrange(4)}.{self.rnd.randrange(250)}"

    def open(self) -> None:
        player = self.free.pop(self.rnd.randrange(len(self.free)))
        party = []
        if self.free and self.rnd.random() < 0.15:
            party = [{"player": self.free.pop(self.rnd.randrange(len(self.free))), "ip": self._ip()}]
        body = {
            "player": player,
            "ip": self._ip(),
            "party": party,
            "game": self.rnd.choice(["tokaido", "hanabi"]),
            "min_players": 2,
            "max_players": self.rnd.choice([4, 5]),
            "request_id": f"r-{player}",
        }
        response = self.site.call("ticket", "POST", "/api/v1/matchmaking/tickets/", {201, 200}, json=body)
        if response is not None and response.status_code in (200, 201):
            self.opened[response.json()["id"]] = body
            if self.rnd.random() < 0.1:  # a game server retries: the same ticket, never a second one
                again = self.site.call("ticket", "POST", "/api/v1/matchmaking/tickets/", {200}, json=body)
                if again is not None and again.status_code == 200 and again.json()["id"] != response.json()["id"]:
                    self.site.log.add(Answer(time.monotonic(), "ticket", 200, None, False, "a second ticket"))

    def poll(self) -> None:
        ticket = self.rnd.choice(list(self.opened))
        self.site.call("poll", "GET", f"/api/v1/matchmaking/tickets/{ticket}/", {200})

    def cancel(self) -> None:
        ticket = self.rnd.choice(list(self.opened))
        response = self.site.call("cancel", "DELETE", f"/api/v1/matchmaking/tickets/{ticket}/", {200, 204, 409})
        if response is not None and response.status_code in (200, 204):
            self.cancelled.add(ticket)
