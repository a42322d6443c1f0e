"""docs/operations.md's commands, run as the runbook says.

A backup with ``pg_dump``, a scratch database made by ``createdb``, the restore with ``pg_restore``, then on the
restored copy ``manage.py migrate --check`` and ``manage.py rebuild_ratings --check`` (which also fails on a copy
whose ratings were altered, and passes again after ``rebuild_ratings --game``), and ``manage.py
rebuild_leaderboards`` filling Redis from it."""

from __future__ import annotations

import subprocess
import sys

import psycopg
import pytest
from django.db import connection

from arena.servers import game_server_create
from leaderboards.redis_board import keys
from tests.conftest import game_body, player
from tests.db.ratings.helpers import ensure_hanabot_table, post, rate_all, skill_all
from tests.services.workers import ROOT, worker_env

pytestmark = pytest.mark.django_db(transaction=True)


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def scratch():
    """A scratch database on the same server, named after the test database, dropped afterwards."""
    db = connection.settings_dict
    name = f"{db['NAME']}_restore"
    admin = worker_env()["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
    # createdb, as the runbook says.
    subprocess.run(
        ["createdb", "-h", db["HOST"] or "127.0.0.1", "-p", str(db["PORT"] or 5432), "-U", db["USER"], name],
        check=True,
        timeout=60,
    )
    yield name
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_backup_restore_check_and_boards_from_the_copy(scratch, tmp_path, redis_conn):
    ensure_hanabot_table()
    from rest_framework.test import APIClient

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {game_server_create(name='backup').key}")
    post(
        api,
        [
            game_body("tokaido", [player(w, 40, achievements=1), player(lo, 30, achievements=1)])
            for w, lo in [("a", "b"), ("b", "c"), ("a", "c")] * 3
        ],
    )
    rate_all()
    skill_all()

    db = connection.settings_dict
    where = ["-h", db["HOST"] or "127.0.0.1", "-p", str(db["PORT"] or 5432), "-U", db["USER"]]
    dump = tmp_path / "arena.dump"
    subprocess.run(["pg_dump", *where, "-Fc", "-f", str(dump), db["NAME"]], check=True, timeout=120)
    subprocess.run(["pg_restore", *where, "--no-owner", "-d", scratch, str(dump)], check=True, timeout=120)

    restored = worker_env(DEBUG="true")
    restored["DATABASE_URL"] = restored["DATABASE_URL"].rsplit("/", 1)[0] + f"/{scratch}"
    assert manage(restored, "migrate", "--check").returncode == 0  # the copy's schema is the code's
    checked = manage(restored, "rebuild_ratings", "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "tokaido: 9 games" in checked.stdout and "identical to the stored ratings" in checked.stdout

    # The check can fail: one altered rating in the copy is found.
    with psycopg.connect(restored["DATABASE_URL"], autocommit=True) as conn:
        conn.execute(
            "UPDATE ratings_rating SET elo = elo + 1 WHERE player_id = "
            "(SELECT id FROM arena_player WHERE handle = 'a') AND title = 'tokaido'"
        )
    altered = manage(restored, "rebuild_ratings", "--check")
    assert altered.returncode != 0 and "differences" in altered.stdout
    # ... and repaired by the rebuild itself, from the stored games.
    assert manage(restored, "rebuild_ratings", "--game", "tokaido").returncode == 0
    assert manage(restored, "rebuild_ratings", "--check").returncode == 0

    # The Redis boards come from PostgreSQL: rebuilt from the restored copy (a, b and c have 6 games each).
    boards = manage(restored, "rebuild_leaderboards")
    assert boards.returncode == 0, boards.stderr
    assert "tokaido: 3 players" in boards.stdout
    assert redis_conn.exists(keys("tokaido").ready) and redis_conn.zcard(keys("tokaido").board) == 3
