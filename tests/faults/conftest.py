"""The fault suite's fixtures: one private PostgreSQL cluster and Redis per session, a fresh database (from a
migrated template) and the whole production shape per test. Run it alone with ``scripts/faults``.

Durations scale with ``ARENA_FAULT_SCALE`` (1 = the issue's full length: Redis down 20 s, PostgreSQL 10 s, a
push receiver 30 s; CI uses a shorter scale so the suite stays within minutes on two cores).
"""

from __future__ import annotations

import itertools
import json
import os
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.faults.services import PrivatePostgres, PrivateRedis, free_port
from tests.faults.shape import BIN, ROOT, Shape, manage, production_env

SCALE = float(os.environ.get("ARENA_FAULT_SCALE", "1"))
_databases = itertools.count(1)


def scaled(seconds: float, least: float = 1.0) -> float:
    return max(least, seconds * SCALE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.faults)


@dataclass
class Cluster:
    postgres: PrivatePostgres
    redis: PrivateRedis
    root: Path
    keys: dict[str, str]


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    root = Path(tempfile.mkdtemp(prefix="arena-faults-"))
    os.chmod(root, 0o755)
    postgres, redis = PrivatePostgres(root / "pg"), PrivateRedis(root / "redis")
    try:
        postgres.init()
        redis.start()
        keys = {"SECRET_KEY": secrets.token_urlsafe(48), "IP_HASH_KEY": secrets.token_urlsafe(48)}
        postgres.psql("CREATE DATABASE arena_template")
        env = production_env(
            database_url=postgres.url("arena_template"), redis_url=redis.url(), var_dir=root, bind="127.0.0.1:1", **keys
        )
        manage(env, "migrate", "--no-input", timeout=600)
        yield Cluster(postgres, redis, root, keys)
    finally:
        if os.environ.get("ARENA_FAULT_KEEP") == "1":  # to look into a failure: the cluster stays, stopped
            redis.stop()
            postgres.stop("fast")
            print(f"\nARENA_FAULT_KEEP: cluster kept in {root} (PostgreSQL data in {postgres.data})")
        else:
            redis.destroy()
            postgres.destroy()
            shutil.rmtree(root, ignore_errors=True)


@dataclass
class Arena:
    """A running production shape on a fresh database, with one game server ("fault-a") and its key."""

    cluster: Cluster
    shape: Shape
    env: dict[str, str]
    key: str
    logs: Path

    @property
    def url(self) -> str:
        return self.shape.url

    def manage(self, *args: str, stdin: str | None = None) -> str:
        return manage(self.env, *args, stdin=stdin)

    def shell(self, code: str) -> str:
        return manage(self.env, "shell", "--no-imports", "-c", code)

    def check(self, **spec: object) -> dict:
        """tests/faults/check.py in the site's environment; its figures, or the test fails with its message."""
        path = self.logs / "check.json"
        path.write_text(json.dumps({"url": self.url, **spec}), encoding="utf-8")
        done = subprocess.run(
            [str(BIN / "python"), "-m", "tests.faults.check", str(path)],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode:
            raise AssertionError(f"the end-state check failed:\n{done.stderr[-6000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])


def arena_env(cluster: Cluster, db: str, logs: Path, **extra: str) -> dict[str, str]:
    return production_env(
        database_url=cluster.postgres.url(db),
        redis_url=cluster.redis.url(),
        var_dir=logs,
        bind=f"127.0.0.1:{free_port()}",
        **cluster.keys,
        # Small batches: many transactions, so a SIGKILL very likely lands inside one.
        RATING_BATCH_SIZE="40",
        MATCHMAKING_PUSH_BACKOFF=str(scaled(1.0, 0.25)),
        MATCHMAKING_PUSH_TIMEOUT="2",
        **extra,
    )


@pytest.fixture
def arena(cluster: Cluster, tmp_path: Path) -> Iterator[Arena]:
    db = f"arena_fault_{next(_databases)}"
    cluster.postgres.psql(f"CREATE DATABASE {db} TEMPLATE arena_template")
    cluster.redis.client().flushall()
    env = arena_env(cluster, db, tmp_path)
    key = manage(env, "create_game_server", "fault-a", "--quiet-key").strip()
    shape = Shape(env=env, logs=tmp_path)
    shape.start_all()
    running = Arena(cluster, shape, env, key, tmp_path)
    try:
        shape.wait_ready(timeout=120)
        yield running
    finally:
        shape.stop_all()
        # A test that stopped a server brings it back, even when it failed half way.
        if cluster.redis.process is None:
            cluster.redis.start()
        if (
            "accepting"
            not in cluster.postgres._run(
                cluster.postgres.bin / "pg_isready", "-h", "127.0.0.1", "-p", str(cluster.postgres.port), check=False
            ).stdout
        ):
            cluster.postgres.start()
        if os.environ.get("ARENA_FAULT_KEEP") != "1":
            cluster.postgres.psql(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
