"""A tournament's next round paired by a real ``celery worker`` on Redis and PostgreSQL (docs/tournaments.md,
"Rounds, results and deadlines"): the API process records the round's last game and queues the pairing; the worker
pairs it; the same task queued again (a retry, a redelivery) finds it paired and pairs nothing more."""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Iterator

import pytest

from tests.db.ratings.helpers import ensure_hanabot_table
from tests.db.tournaments.conftest import TOURNAMENTS, client_for, create, register, tokaido_game
from tests.services.test_rating_worker import Worker
from tests.services.workers import worker_env
from tournaments import tasks
from tournaments.models import Round, Tournament

pytestmark = pytest.mark.django_db(transaction=True)  # committed rows the worker can see
WAIT = 90.0


@pytest.fixture
def worker(transactional_db, redis_conn, tmp_path) -> Iterator[Worker]:
    ensure_hanabot_table()  # the recorded games are rated by the same worker
    running = Worker(worker_env(), tmp_path, tmp_path / "beat-schedule")
    running.start()
    yield running
    running.kill(signal.SIGTERM)  # before the test database is flushed: the worker holds connections to it


def _log(worker: Worker) -> str:
    return (worker.logs / f"worker-{worker.starts}.log").read_text(errors="replace")


def _wait(worker: Worker, done, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not done():
        if time.monotonic() > deadline or not worker.alive():
            pytest.fail(f"{what} not seen in {WAIT}s (worker alive: {worker.alive()}):\n{_log(worker)[-3000:]}")
        time.sleep(0.2)


def _pair_tasks(worker: Worker) -> list[int]:
    """The round each pair_next the worker ran paired (0: nothing), from its task lines (``task_facts``)."""
    lines = [line for line in _log(worker).splitlines() if "task=tournaments.tasks.pair_next" in _plain(line)]
    return [int(re.search(r"paired=(\d+)", _plain(line)).group(1)) for line in lines]


def _plain(line: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", line)


def test_a_real_worker_pairs_the_next_round_once(worker):
    organiser = client_for()
    tid = create(organiser, rounds=3)["id"]
    for i in range(1, 9):
        assert register(organiser, tid, f"tw{i}").status_code == 201
    tables = organiser.post(f"{TOURNAMENTS}{tid}/start/").json()["rounds"][0]["tables"]
    assert sorted(len(t["seats"]) for t in tables) == [4, 4]
    for table in tables:
        body = tokaido_game(table, dict(zip(table["seats"], (90, 80, 70, 60), strict=True)))
        assert organiser.post("/api/v1/games/", body, format="json").status_code == 201
    assert Round.objects.get(tournament_id=tid, number=1).closed_at is not None  # closed by the request
    _wait(worker, lambda: Tournament.objects.get(pk=tid).round == 2, "round 2")
    _wait(worker, lambda: _pair_tasks(worker) == [2], "the worker's pair_next")  # the worker paired it

    for _ in range(2):  # the same task again: a retry, a redelivery
        tasks.pair_next.delay(tid, 1)
    _wait(worker, lambda: len(_pair_tasks(worker)) == 3, "the repeated tasks")
    assert _pair_tasks(worker) == [2, 0, 0]
    assert list(Round.objects.filter(tournament_id=tid).order_by("number").values_list("number", flat=True)) == [1, 2]
    shown = organiser.get(f"{TOURNAMENTS}{tid}/rounds/2/").json()
    assert sorted(p for t in shown["tables"] for p in t["seats"]) == sorted(f"tw{i}" for i in range(1, 9))
