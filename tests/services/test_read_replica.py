"""Public reads served by a real streaming replica (DATABASE_REPLICA_URL), the primary answering when it is down.

A private cluster and its replica (``pg_basebackup -R``) on free ports: the shared PostgreSQL is never stopped (the
schema is restored from the suite's migrated template there, tests/migrated.py).
The proof that a read came from the replica: with the replica's replay paused, a game recorded on the primary is
seen by the game server's own read but not by the public pages, which show the state before it; resumed, they
catch up. Then the replica is stopped and the public pages are answered from the primary.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.db import connection

from tests import migrated
from tests.services import private_pg
from tests.services.workers import ROOT

pytestmark = pytest.mark.skipif(not private_pg.available(), reason="needs PostgreSQL's server binaries")


def probe(phase: str, env: dict[str, str]) -> dict:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests/services/replica_probe.py"), phase],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def pair():
    root = private_pg.scratch_dir()
    primary = private_pg.primary(root)
    replica = None
    try:
        with primary.connect() as conn:
            conn.execute("CREATE DATABASE arena")
        env = {
            **os.environ,
            "DEBUG": "true",
            "DATABASE_URL": primary.db_url("arena"),
            "PYTHONPATH": str(ROOT),
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
        env.pop("REDIS_URL", None)  # embedded: leaderboards answer from SQL, the fallback this routes
        # The migrated schema, restored from the suite's template (tests/migrated.py) rather than migrated again.
        migrated.restore(migrated.dump(migrated.url_of(connection.settings_dict)), env["DATABASE_URL"])
        replica = private_pg.replica(root, of=primary)
        yield primary, replica, {**env, "DATABASE_REPLICA_URL": replica.db_url("arena")}
    finally:
        if replica is not None:
            replica.stop()
        primary.stop()
        private_pg.remove(root)


def test_public_reads_come_from_the_replica_and_fall_back_to_the_primary(pair):
    _, replica, env = pair
    seen = probe("seed", env)
    # Caught up: alice's 5 games on every public page, read through a connection to the replica's port.
    up = seen["caught_up"]
    assert (up["alice_status"], up["alice_games"], up["history_entries"], up["board_alice_games"]) == (200, 5, 5, 5)
    assert up["replica_connected_port"] == replica.port and up["carol_status"] == 404
    # Replay paused, a 6th game (alice beats the new carol) recorded: the primary has it and the game server's own
    # read sees it; the public pages still show the replica's 5 games and no carol.
    assert seen["own_read_status"] == 200 and seen["primary_alice_games"] == 6 and seen["primary_has_carol"]
    paused = seen["paused"]
    assert (paused["alice_games"], paused["history_entries"], paused["board_alice_games"]) == (5, 5, 5)
    assert paused["carol_status"] == 404
    resumed = seen["resumed"]
    assert (resumed["alice_games"], resumed["history_entries"], resumed["carol_status"]) == (6, 6, 200)

    replica.stop()
    down = probe("fallback", env)
    for reads in (down["first"], down["second"]):
        assert (reads["alice_status"], reads["alice_games"], reads["history_entries"]) == (200, 6, 6)
        assert (reads["board_status"], reads["carol_status"]) == (200, 200)
        assert reads["replica_connected_port"] is None
    print(
        f"\nreads with the replica up: {up['seconds']} s; replica down, first {down['first']['seconds']} s, "
        f"then {down['second']['seconds']} s"
    )
