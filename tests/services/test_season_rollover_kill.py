"""Rollover exactly once under SIGKILL (docs/seasons.md "After the close"): a real ``manage.py season_rollover``
process is killed while its transaction holds the archive and the next season, uncommitted; nothing of it stays,
and the next run closes the season once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from arena.models import Player
from seasons.models import Season, SeasonFinal, SeasonRollover
from seasons.services import season_follow, season_open
from tests.db.seasons.helpers import rated_game
from tests.services.workers import worker_env

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 10, 6, 12, tzinfo=UTC)


def rollover_process() -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "season_rollover",
            "wizard",
            "--season",
            "1",
            "--actor",
            "ops",
            "--reason",
            "test",
        ],
        cwd=ROOT,
        env=worker_env(DEBUG="true"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def waiting_on_a_lock(conn: psycopg.Connection) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock' AND query ILIKE '%seasons_seasonrollover%'"
    ).fetchone()
    return bool(row and row[0])


@pytest.mark.django_db(transaction=True)
def test_a_rollover_killed_half_way_leaves_nothing_and_the_next_closes_once(settings):
    settings.SEASON_PLACEMENT_GAMES = 0
    a, b = Player.objects.create(handle="kill-a"), Player.objects.create(handle="kill-b")
    season_open(title="wizard", now=NOW)
    rated_game("wizard", [(a, 0, 1), (b, 1, 2)], NOW)
    season_follow(title="wizard")
    db = connection.settings_dict
    conninfo = f"host={db['HOST'] or 'localhost'} port={db['PORT'] or 5432} dbname={db['NAME']} user={db['USER']}"
    with (
        psycopg.connect(conninfo, password=db["PASSWORD"] or None) as holder,
        psycopg.connect(conninfo, password=db["PASSWORD"] or None, autocommit=True) as watcher,
    ):
        # The audit row is the rollover's last write: holding its table stops the process there, uncommitted.
        holder.execute("LOCK TABLE seasons_seasonrollover IN ACCESS EXCLUSIVE MODE")
        proc = rollover_process()
        deadline = time.monotonic() + 60
        while not waiting_on_a_lock(watcher):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the rollover never reached its last write"
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        holder.rollback()
    assert proc.returncode == -signal.SIGKILL
    assert Season.objects.filter(title="wizard").count() == 1
    assert Season.objects.get(title="wizard").closed_at is None
    assert (SeasonFinal.objects.count(), SeasonRollover.objects.count()) == (0, 0)
    for _ in range(2):  # the retry, then a second retry that finds it done
        done = rollover_process()
        out, err = done.communicate(timeout=120)
        assert done.returncode == 0, err
    assert b"already closed" in out
    assert list(Season.objects.filter(title="wizard").order_by("number").values_list("number", flat=True)) == [1, 2]
    assert SeasonFinal.objects.count() == 2
    assert SeasonRollover.objects.count() == 1
