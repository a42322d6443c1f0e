"""The production shape stopped with SIGTERM in the middle of a stream of games, started again, and every game
rated exactly once: compared with an independent replay of the rules (tests/db/ratings/replay.py, written from
docs/ratings.md), one history row per seat, nothing missing.

The game server keeps sending while the shape is down, as a real one would: a refused connection or a 5xx is
retried with the same body (a resent game is a 200 with the stored game, never a second one).
"""

from __future__ import annotations

import random
import threading
import time

import httpx
import pytest

from arena.models import Game
from arena.servers import game_server_create
from tests.db.ratings.bodies import random_bodies
from tests.db.ratings.helpers import ensure_hanabot_table
from tests.services.shape import Shape
from tests.services.test_rating_worker import _outstanding, check_exact

pytestmark = pytest.mark.django_db(transaction=True)
BATCH = 50


class Stream(threading.Thread):
    """Posts the games in batches, in order, each batch until it is accepted."""

    def __init__(self, url: str, key: str, games: list[dict]):
        super().__init__(daemon=True)
        self.url, self.key, self.games = url, key, games
        self.sent = self.retries = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with httpx.Client(base_url=self.url, headers={"Authorization": f"Api-Key {self.key}"}, timeout=30) as c:
                for start in range(0, len(self.games), BATCH):
                    self._send(c, self.games[start : start + BATCH])
                    self.sent = start + BATCH
        except BaseException as exc:  # surfaced by the test
            self.error = exc

    def _send(self, client: httpx.Client, batch: list[dict]) -> None:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                response = client.post("/api/v1/games/batch/", json={"games": batch})
                if response.status_code == 200:
                    codes = {r["status_code"] for r in response.json()["results"]}
                    assert codes <= {200, 201}, response.text
                    return
            except httpx.TransportError:
                pass
            self.retries += 1
            time.sleep(0.2)
        raise AssertionError("a batch was never accepted")


@pytest.fixture
def shape(transactional_db, redis_conn, tmp_path):
    ensure_hanabot_table()
    running = Shape(tmp_path, RATING_BATCH_SIZE="40")
    running.start()
    yield running
    running.kill()


def test_stopped_mid_stream_and_started_again_every_game_is_rated_exactly_once(shape: Shape):
    games = random_bodies(random.Random(52), 1500, pool=50, prefix="s")
    stream = Stream(shape.url, game_server_create(name="stream").key, games)
    stream.start()
    deadline = time.monotonic() + 120
    while stream.sent < len(games) // 3 or not Game.objects.filter(status=Game.Status.RATED).exists():
        assert time.monotonic() < deadline and stream.error is None, stream.error
        time.sleep(0.05)

    code, took, statuses = shape.stop()
    assert shape.survivors() == [], "a process outlived the stop"
    assert set(statuses.values()) == {0}, statuses
    # A warm shutdown: each worker's pool finished its task (none was killed under it: no WorkerLostError) and
    # the messages it had prefetched went back to Redis.
    assert b"WorkerLostError" not in shape.log.read_bytes()
    sent_at_stop = stream.sent
    rated_at_stop = Game.objects.filter(status=Game.Status.RATED).count()
    assert 0 < sent_at_stop < len(games), "not stopped mid-stream"
    time.sleep(2)  # the game server keeps trying meanwhile
    shape.start()

    stream.join(timeout=300)
    assert stream.error is None, stream.error
    assert not stream.is_alive()
    deadline = time.monotonic() + 120
    while _outstanding():
        assert time.monotonic() < deadline, f"{_outstanding()} games still outstanding"
        time.sleep(0.25)
    check_exact(games)
    print(
        f"\nstopped after {sent_at_stop} games sent, {rated_at_stop} rated; stop took {took:.1f} s "
        f"(honcho {code}); {stream.retries} retries by the client while down"
    )
