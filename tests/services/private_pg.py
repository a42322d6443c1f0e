"""A private PostgreSQL cluster (and its streaming replica) for tests that stop a server: never the shared one.

``initdb`` + ``pg_ctl`` on a free port in a temporary directory, run as the ``postgres`` OS user (``runuser``) when
the tests run as root, since PostgreSQL refuses to run as root. ``replica()`` makes a real streaming replica of
it with ``pg_basebackup -R`` (the standby.signal and primary_conninfo it writes are PostgreSQL's own).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg

BIN = Path(sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]) if glob.glob("/usr/lib/postgresql/*/bin") else None


def available() -> bool:
    return BIN is not None and (BIN / "initdb").exists()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run(prefix + args, check=True, capture_output=True, text=True, timeout=120, **kwargs)


@dataclass
class Cluster:
    data: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def db_url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def start(self) -> None:
        _as_postgres(
            [
                str(BIN / "pg_ctl"),
                "-D",
                str(self.data),
                "-w",
                "-t",
                "60",
                "-l",
                str(self.data / "log"),
                "-o",
                f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1",
                "start",
            ]
        )

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            _as_postgres([str(BIN / "pg_ctl"), "-D", str(self.data), "-w", "-m", "fast", "stop"])

    def connect(self, dbname: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(self.db_url(dbname), autocommit=True)


def scratch_dir() -> Path:
    """A directory the postgres user can reach (pytest's own tmp dirs sit under a root-only one)."""
    return Path(tempfile.mkdtemp(prefix="arena-pg-"))


def remove(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)


def _owned_dir(root: Path, name: str) -> Path:
    path = root / name
    path.mkdir(mode=0o700)
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")
    return path


def primary(root: Path) -> Cluster:
    """A fresh cluster in ``root``, trusting local connections, started and ready for replicas."""
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    data = _owned_dir(root, "primary")
    _as_postgres([str(BIN / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync"])
    with open(data / "postgresql.conf", "a") as conf:
        conf.write("\nwal_level = replica\nmax_wal_senders = 4\nfsync = off\nshared_buffers = 32MB\n")
    cluster = Cluster(data=data, port=free_port())
    cluster.start()
    return cluster


def replica(root: Path, of: Cluster) -> Cluster:
    """A streaming replica of ``of``: ``pg_basebackup -R`` into its own directory, started on its own port."""
    data = root / "replica"
    _as_postgres(
        [
            str(BIN / "pg_basebackup"),
            "-h",
            "127.0.0.1",
            "-p",
            str(of.port),
            "-U",
            "postgres",
            "-D",
            str(data),
            "-R",
            "-X",
            "stream",
            # At once: by default the backup waits for a spread checkpoint (most of checkpoint_timeout, 112 s here).
            "--checkpoint=fast",
        ]
    )
    cluster = Cluster(data=data, port=free_port())
    cluster.start()
    with cluster.connect() as conn:
        assert conn.execute("SELECT pg_is_in_recovery()").fetchone()[0] is True
    return cluster


def caught_up(primary_: Cluster, replica_: Cluster, timeout: float = 30.0) -> None:
    """Waits until the replica has replayed everything the primary has written so far."""
    with primary_.connect() as conn:
        lsn = conn.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
    deadline = time.monotonic() + timeout
    with replica_.connect() as conn:
        while time.monotonic() < deadline:
            if conn.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [lsn]).fetchone()[0]:
                return
            time.sleep(0.1)
    raise AssertionError("the replica did not catch up")
