"""Every benchmark runs once, at a tiny size, so none can rot (issue 24 §4; docs/testing.md, "The suite's passes").

Not a timed test: a bench's figures at these sizes mean nothing, and nothing here compares them. What is checked is
that each ``bench/*_bench.py`` (and ``bench/request_profile.py``) runs as its docstring says, on a scratch
database whose name holds "bench" (the benches refuse any other), exits 0 and prints the lines it is for. A new
bench without an entry in ``TINY`` fails here until it gets one.
"""

from __future__ import annotations

import subprocess
import sys

import psycopg
import pytest
from django.db import connection

from tests import migrated
from tests.services.workers import ROOT, worker_env

BENCH = ROOT / "bench"

# bench -> (arguments at a tiny size, a fragment every run prints: the bench's own figures line).
TINY: dict[str, tuple[list[str], str]] = {
    "pairing_bench": (["--players", "40", "--rounds", "1"], "pair_round"),
    "rating_bench": (["--games", "200", "--naive", "20", "--skill", "50", "--players", "40"], "floor"),
    "season_bench": (["--games", "200", "--players", "40", "--batch", "50", "--entries", "300"], "rollover"),
    "detection_bench": (["--history", "300", "--new", "100", "--active", "40"], "pass"),
    "matchmaking_bench": (["--sizes", "100", "--rate", "120", "--minutes", "0.5"], "stream"),
    "request_profile": (["--requests", "3", "--games", "10"], "POST"),
    "leaderboard_bench": (["--sizes", "100", "300", "--requests", "20"], "top-50"),
    "recording_bench": (["--rounds", "1", "--seconds", "1"], "in CPU"),
    "ledger_bench": (["--games", "200", "--players", "40", "--batch", "50"], "with / without"),
}

MODULES = {"request_profile", "recording_bench"}


def benches() -> list[str]:
    return sorted(p.stem for p in BENCH.glob("*.py") if p.stem.endswith("_bench") or p.stem == "request_profile")


def test_every_bench_has_a_tiny_size():
    assert benches() == sorted(TINY), "give each bench an entry in TINY (its tiny arguments and a line it prints)"


@pytest.fixture(scope="module")
def bench_env():
    """A scratch database named after the test database (so xdist workers never share one), a copy of the migrated
    template (tests/migrated.py), dropped afterwards; the environment points at it and at the test Redis, and names
    the template to the benches that make a database of their own (``ARENA_BENCH_TEMPLATE``, bench/harness.py)."""
    name = f"{connection.settings_dict['NAME']}_bench"
    env = worker_env()
    env["DATABASE_URL"] = migrated.clone(env["DATABASE_URL"], name)
    env["ARENA_BENCH_TEMPLATE"] = migrated.template(env["DATABASE_URL"])
    yield env
    admin = migrated.server_url(env["DATABASE_URL"])
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'DROP DATABASE IF EXISTS "{name}_rec" WITH (FORCE)')


@pytest.mark.parametrize("bench", sorted(TINY))
def test_the_bench_runs_at_a_tiny_size(bench, bench_env, redis_conn):
    """``redis_conn`` empties the test Redis database first: the Redis benches refuse one holding keys."""
    args, figures = TINY[bench]
    if bench == "recording_bench":  # it makes its own database afresh, and takes its Redis db by number
        redis_db = bench_env["REDIS_URL"].rsplit("/", 1)[1]
        name = bench_env["DATABASE_URL"].rsplit("/", 1)[1]
        args = [*args, "--database", f"{name}_rec", "--redis-db", redis_db]
    # As each docstring says: a script, or a module of the bench package (those importing bench.harness).
    how = ["-m", f"bench.{bench}"] if bench in MODULES else [str(BENCH / f"{bench}.py")]
    command = [sys.executable, *how, *args]
    done = subprocess.run(command, cwd=ROOT, env=bench_env, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(command[1:])} exited {done.returncode}:\n{output[-4000:]}"
    assert figures in output, f"{bench} printed no {figures!r} line:\n{output[-4000:]}"
