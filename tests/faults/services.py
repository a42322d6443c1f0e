"""A private PostgreSQL cluster and a private Redis, made by the fault suite on free loopback ports.

The machine's shared PostgreSQL (5432) and Redis (6379) serve every other engineer and test run: a fault test
stops and restarts servers, so it only ever stops these, which it created in a temporary directory and owns.
PostgreSQL runs as the ``postgres`` OS user (``initdb`` refuses root) through ``runuser`` when we are root.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis


def free_port() -> int:
    """A port nobody listens on now (bound to 0 and released: the usual small race, fine on loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        raise RuntimeError("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
    return Path(found[-1]).parent


class PrivatePostgres:
    """``initdb`` + ``pg_ctl`` on a free port with its socket in its own directory; trust auth on loopback."""

    def __init__(self, root: Path):
        self.bin = _pg_bin()
        self.root = root
        self.data = root / "pgdata"
        self.port = free_port()
        self.as_root = os.geteuid() == 0

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [str(a) for a in args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, check=check, capture_output=True, text=True, timeout=120)

    def init(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        self._run(
            self.bin / "initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-instructions"
        )
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write(
                f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
                f"unix_socket_directories = '{self.root}'\nmax_connections = 300\n"
                # A clean or fast stop always flushes; fsync only matters for a power cut, not simulated.
                "fsync = off\nfull_page_writes = off\nshared_buffers = 128MB\n"
            )
        self.start()

    def start(self) -> None:
        self._run(self.bin / "pg_ctl", "-D", self.data, "-l", self.root / "postgres.log", "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run(self.bin / "pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "60", "stop")

    def restart(self, mode: str = "fast") -> None:
        self._run(
            self.bin / "pg_ctl",
            "-D",
            self.data,
            "-m",
            mode,
            "-w",
            "-t",
            "60",
            "-l",
            self.root / "postgres.log",
            "restart",
        )

    def psql(self, sql: str, db: str = "postgres") -> str:
        return self._run(
            self.bin / "psql",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-d",
            db,
            "-v",
            "ON_ERROR_STOP=1",
            "-Atc",
            sql,
        ).stdout

    def log_count(self, text: str) -> int:
        """How many lines of the server log contain ``text`` (evidence of what a fault did)."""
        path = self.root / "postgres.log"
        return sum(text in line for line in path.read_text(errors="replace").splitlines()) if path.exists() else 0

    def url(self, db: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{db}"

    def destroy(self) -> None:
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class PrivateRedis:
    """``redis-server`` on a free port with an append-only file, so a stop and start keeps its data (as a
    production Redis with persistence does); nobody else's keys live in it, so FLUSHALL is ours to use."""

    def __init__(self, root: Path):
        self.root = root
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        log = open(self.root / "redis.log", "ab")  # noqa: SIM115 - owned by the child
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.root),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
                "--protected-mode",
                "no",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 20
        while True:
            try:
                self.client().ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        """A clean shutdown (the append-only file is flushed), then the port is closed until ``start``."""
        if self.process is None:
            return
        with contextlib.suppress(redis.ConnectionError):
            self.client().shutdown(save=False)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def destroy(self) -> None:
        with contextlib.suppress(Exception):
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
