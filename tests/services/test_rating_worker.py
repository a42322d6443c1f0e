"""The rating stages in a real ``celery worker`` process on Redis and PostgreSQL, killed with SIGKILL mid-run.

Games are posted through the API in this process (committed: ``transactional_db``), the worker rates them from
the messages queued on commit and from the beat sweep, and every rating, history row and TrueSkill belief is
then compared with a plain sequential replay of the rules. Nothing lost, nothing counted twice.
"""

from __future__ import annotations

import random
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection
from rest_framework.test import APIClient

from arena.models import Game
from arena.servers import game_server_create
from config.celery import app
from ratings.lag import trueskill_lag
from ratings.models import RatingChange
from tests.db.ratings.bodies import random_bodies
from tests.db.ratings.helpers import ensure_hanabot_table, post
from tests.db.ratings.replay import Replay, assert_matches, game_order_ok
from tests.process_groups import groups_stop
from tests.services.workers import CELERY, ROOT, worker_conf, worker_env

# Small batches in the worker: many transactions, so a SIGKILL very likely lands inside one.
WORKER_BATCH_SIZE = "40"
DONE_TIMEOUT = 90.0

# Committed data the worker can see.
pytestmark = pytest.mark.django_db(transaction=True)


class Worker:
    """A ``celery worker`` (with embedded beat) in its own process group, so a kill takes all its children."""

    def __init__(self, env: dict[str, str], logs: Path, schedule: Path):
        self.env, self.logs, self.schedule = env, logs, schedule
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        log = open(self.logs / f"worker-{self.starts}.log", "wb")  # noqa: SIM115 - owned by the child
        self.process = subprocess.Popen(
            # A fresh beat schedule file per start: a SIGKILL may leave the last one half written.
            [
                CELERY,
                "-A",
                "config",
                "worker",
                "-B",
                "-s",
                f"{self.schedule}-{self.starts}",
                "-Q",
                "elo,trueskill,arena,detection",
                "--pool=prefork",
                "--concurrency=2",
                "--loglevel=INFO",
                "-n",
                f"rating-test-{self.starts}@%h",
                "--without-mingle",
                "--without-gossip",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process is None:
            return
        groups_stop([self.process], sig, grace=20)
        self.process = None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


@pytest.fixture
def worker(transactional_db, redis_conn, tmp_path) -> Iterator[Worker]:
    """The worker against the test database (pytest-django's ``test_<name>``) and the test Redis."""
    ensure_hanabot_table()  # an earlier transactional test's flush emptied it
    env = worker_env(RATING_BATCH_SIZE=WORKER_BATCH_SIZE)
    running = Worker(env, tmp_path, tmp_path / "beat-schedule")
    running.start()
    yield running
    running.kill(signal.SIGTERM)  # before the test database is flushed: the worker holds connections to it


@pytest.fixture
def server_api(transactional_db) -> APIClient:
    issued = game_server_create(name="worker-test")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {issued.key}")
    return api


def _outstanding() -> int:
    return Game.objects.filter(status=Game.Status.PENDING).count() + sum(row.pending for row in trueskill_lag())


def wait_until_done(worker: Worker, timeout: float = DONE_TIMEOUT) -> float:
    """Poll the database until both stages caught up; fail with the worker's log tail if they do not."""
    started = time.monotonic()
    while _outstanding():
        if time.monotonic() - started > timeout or not worker.alive():
            tail = (worker.logs / f"worker-{worker.starts}.log").read_text(errors="replace")[-3000:]
            pytest.fail(
                f"{_outstanding()} games still outstanding after {timeout}s (worker alive: {worker.alive()}):\n{tail}"
            )
        time.sleep(0.25)
    return time.monotonic() - started


def check_exact(games: list[dict]) -> None:
    replay = Replay()
    replay.play(games)
    assert_matches(replay, trueskill=True)
    game_order_ok()
    # Nothing counted twice: one history row per seat of every rated game, no more.
    seats = sum(len(g["players"]) for g in games if g.get("rated", True) and len(g["players"]) > 1)
    assert RatingChange.objects.filter(kind="game").count() == seats


def test_worker_rates_thousands_of_games_exactly(worker: Worker, server_api: APIClient):
    games = random_bodies(random.Random(31), 2500, pool=60, prefix="w")
    for start in range(0, len(games), 250):
        post(server_api, games[start : start + 250])
    wait_until_done(worker)
    check_exact(games)


def _rated() -> int:
    return Game.objects.filter(status=Game.Status.RATED).count()


def _progress_beyond(count: int, timeout: float) -> None:
    """Wait for the state the kill needs (more games rated than at the last kill), however long a restarted worker
    takes to its first batch on a busy machine; fail if it never comes."""
    deadline = time.monotonic() + timeout
    while _rated() <= count:
        assert time.monotonic() < deadline, f"no game rated beyond {count} in {timeout:.0f} s"
        time.sleep(0.01)


def _worker_in_transaction(timeout: float) -> bool:
    """Wait until another session on the test database (the worker) has a transaction open."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND xact_start IS NOT NULL"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.002)
    return False


def test_worker_killed_mid_run_loses_nothing_and_counts_nothing_twice(worker: Worker, server_api: APIClient):
    rnd = random.Random(32)
    games = random_bodies(rnd, 1600, pool=50, prefix="k")
    chunks = [games[start : start + 200] for start in range(0, len(games), 200)]
    kills = mid_transaction = 0
    rated_at_kills = [0]
    for number, chunk in enumerate(chunks):
        post(server_api, chunk)
        if number == len(chunks) - 1:
            break
        _progress_beyond(rated_at_kills[-1], timeout=120.0)  # this worker has committed batches of its own...
        time.sleep(rnd.uniform(0.0, 0.2))
        mid_transaction += _worker_in_transaction(timeout=5.0)  # ...and is inside another one
        worker.kill(signal.SIGKILL)  # the whole group: main process, pool processes and beat
        kills += 1
        rated_at_kills.append(_rated())
        worker.start()
    assert kills >= 6
    # Killed inside a rating transaction most of the time; the database rolled each one back.
    assert mid_transaction >= kills // 2
    # ... and mid-run: every killed worker had committed part of the work.
    assert rated_at_kills == sorted(set(rated_at_kills)), rated_at_kills
    # Messages the killed workers had reserved stay unacknowledged until Redis's visibility timeout: the games
    # they were about are found again by the beat sweep of the restarted worker.
    wait_until_done(worker)
    check_exact(games)


def test_celery_settings_are_applied_in_the_worker(worker: Worker):
    """A misspelled CELERY_* setting is silently ignored: ask the running worker for its config."""
    conf = worker_conf()
    assert conf["task_acks_late"] is True
    assert conf["task_reject_on_worker_lost"] is True
    assert conf["task_always_eager"] is False
    assert conf["task_routes"]["ratings.tasks.rate_elo"] == {"queue": "elo"}
    assert conf["task_routes"]["ratings.tasks.rate_trueskill"] == {"queue": "trueskill"}
    assert conf["beat_schedule"]["sweep-pending-ratings"]["task"] == "ratings.tasks.sweep_pending"
    registered = app.control.inspect(timeout=2).registered() or {}
    names = set(next(iter(registered.values()), []))
    assert {"ratings.tasks.rate_elo", "ratings.tasks.rate_trueskill", "ratings.tasks.sweep_pending"} <= names
