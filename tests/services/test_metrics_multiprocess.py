"""A real ``celery worker`` process's counters and histograms reach the web's /metrics through prometheus-client's
multiprocess mode (PROMETHEUS_MULTIPROC_DIR, docs/observability.md): games posted here are rated by the worker
alone, and the web's scrape counts them."""

from __future__ import annotations

import subprocess
import time

import pytest
from django.test import Client
from rest_framework.test import APIClient

from arena.models import Game
from arena.servers import game_server_create
from tests.conftest import game_body, player
from tests.db.observability.metrics_text import TOKEN, scrape, value
from tests.process_groups import groups_stop
from tests.services.workers import CELERY, ROOT, worker_conf, worker_env

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_worker_s_batches_show_in_the_web_s_metrics(redis_conn, tmp_path, settings):
    shared = tmp_path / "prometheus"
    shared.mkdir()
    log = open(tmp_path / "worker.log", "wb")  # noqa: SIM115 - owned by the child
    worker = subprocess.Popen(
        [
            CELERY,
            "-A",
            "config",
            "worker",
            "-Q",
            "elo,trueskill,arena,detection",
            "--pool=prefork",
            "--concurrency=1",
            "-n",
            "metrics-test@%h",
            "--without-mingle",
            "--without-gossip",
        ],
        cwd=ROOT,
        env=worker_env(PROMETHEUS_MULTIPROC_DIR=str(shared)),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        worker_conf()
        settings.METRICS_TOKEN = TOKEN
        settings.PROMETHEUS_MULTIPROC_DIR = str(shared)
        before = scrape(Client())
        assert value(before, "arena_rating_batch_games_sum") == 0  # the worker's file exists, with no batch yet
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Api-Key {game_server_create(name='mp').key}")
        for _ in range(3):
            body = game_body("wizard", [player("a", 30), player("b", 20), player("c", 10)])
            assert client.post("/api/v1/games/", body, format="json").status_code == 201
        deadline = time.monotonic() + 60
        while Game.objects.exclude(status=Game.Status.RATED).exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not Game.objects.exclude(status=Game.Status.RATED).exists(), "the worker did not rate the games"
        after = scrape(Client())
        # This process rated nothing (tasks went to the broker): the 3 games are the worker's, in 1 to 3 batches.
        assert value(after, "arena_rating_batch_games_sum") == 3
        assert 1 <= value(after, "arena_rating_batch_games_count") <= 3
        assert value(after, "arena_rating_batch_seconds_count") == value(after, "arena_rating_batch_games_count")
        assert list(shared.glob("*.db")), "the worker wrote no multiprocess file"
    finally:
        groups_stop([worker])
