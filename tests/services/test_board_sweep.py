"""A lost Redis board comes back with no reader asking: the beat sweep (``sweep_lost_boards``) finds its missing
``ready`` marker and has the worker rebuild it, whatever became of the rebuild's message."""

from __future__ import annotations

import signal
import time

import pytest

from leaderboards.redis_board import keys
from tests.conftest import game_body, player
from tests.db.ratings.helpers import ensure_hanabot_table, post
from tests.services.test_rating_worker import Worker, server_api, wait_until_done  # noqa: F401 - fixture
from tests.services.workers import worker_env

pytestmark = pytest.mark.django_db(transaction=True)
SWEEP_SECONDS = 1.0


@pytest.fixture
def worker(transactional_db, redis_conn, tmp_path):
    ensure_hanabot_table()
    running = Worker(worker_env(LEADERBOARD_SWEEP_SECONDS=str(SWEEP_SECONDS)), tmp_path, tmp_path / "beat")
    running.start()
    yield running
    running.kill(signal.SIGTERM)


def wait_for(predicate, timeout: float) -> float:
    started = time.monotonic()
    while not predicate():
        assert time.monotonic() - started < timeout, "timed out"
        time.sleep(0.1)
    return time.monotonic() - started


def test_a_lost_board_is_rebuilt_by_the_sweep_alone(worker, server_api, redis_conn):  # noqa: F811
    post(
        server_api,
        [game_body("tokaido", [player("a", 40, achievements=1), player("b", 30, achievements=1)]) for _ in range(5)],
    )
    wait_until_done(worker)
    k = keys("tokaido")
    # Built by the sweep, never read: a board missing since the start counts as lost.
    wait_for(lambda: redis_conn.exists(k.ready), timeout=30)
    assert redis_conn.zcard(k.board) == 2
    # Lost again (a flush, a restart without persistence), and the rebuild's marker gone with it: no reader and no
    # message, only the sweep.
    redis_conn.delete(k.ready, k.board, k.requested)
    took = wait_for(lambda: redis_conn.exists(k.ready), timeout=SWEEP_SECONDS + 30)
    assert redis_conn.zcard(k.board) == 2
    print(f"\nlost board rebuilt by the sweep {took:.1f} s later")
