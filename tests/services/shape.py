"""The production shape as a site runs it: ``scripts/serve`` in a subprocess, on a free port, on the test database
and the test Redis, in production mode (serve forces DEBUG=false and makes its own keys in a private var dir).

Every process the shape starts carries ``ARENA_VAR_DIR`` in its environment; ``survivors`` reads /proc for that
marker, which tells whether a stop left anything running without relying on process groups (honcho gives each
Procfile process a session of its own).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import httpx

from config.celery import app
from tests.services.private_pg import free_port
from tests.services.workers import ROOT, worker_env

WORKERS = {"elo", "trueskill", "matchmaking", "pushes", "detection"}
STOPPED = re.compile(rb"\| (\w+)\.1 stopped \(rc=(-?\d+)\)")


class Shape:
    def __init__(self, var_dir: Path, **extra: str):
        self.var_dir = var_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = worker_env(**extra)
        for name in ("DEBUG", "SECRET_KEY", "IP_HASH_KEY", "METRICS_TOKEN"):
            env.pop(name, None)  # serve's own: production mode, keys generated into var_dir
        self.env = {
            **env,
            "ARENA_VAR_DIR": str(var_dir),
            "ARENA_BIND": f"127.0.0.1:{self.port}",
            "ARENA_SKIP_SETUP": "1",
            "WEB_CONCURRENCY": "1",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            # Local receivers for pushes (in production they must be https and public).
            "PUSH_ALLOW_PRIVATE_NETWORKS": "true",
        }
        self.process: subprocess.Popen | None = None
        self.starts = 0

    @property
    def log(self) -> Path:
        return self.var_dir / f"serve-{self.starts}.log"

    def start(self, timeout: float = 120.0) -> None:
        self.starts += 1
        out = open(self.log, "wb")  # noqa: SIM115 - owned by the child
        self.process = subprocess.Popen(
            [str(ROOT / "scripts/serve")], cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200 and self._workers_up():
                    return
            time.sleep(0.5)
        self.kill()  # a fixture that fails in its setup gets no teardown
        raise AssertionError(f"the shape did not come up:\n{self.tail()}")

    def _workers_up(self) -> bool:
        """Every worker of the Procfile answers a ping over the broker (they log at WARNING: no "ready" line)."""
        replies = app.control.ping(timeout=1.0) or []
        names = {name.split("@")[0] for reply in replies for name in reply}
        return names >= WORKERS

    def stop(self, timeout: float = 90.0) -> tuple[int, float, dict[str, int]]:
        """SIGTERM to scripts/serve (honcho), as an orchestrator would; returns its status, the seconds it took and
        each process's exit status as honcho reported it."""
        assert self.process is not None
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=timeout)
        took = time.monotonic() - started
        self.process = None
        statuses = {m[1].decode(): int(m[2]) for m in STOPPED.finditer(self.log.read_bytes())}
        return code, took, statuses

    def kill(self) -> None:
        """Teardown only: whatever is left, SIGKILLed."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(Exception):
                self.stop(timeout=60)
        for pid in self.survivors():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def survivors(self) -> list[int]:
        marker = f"ARENA_VAR_DIR={self.var_dir}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            with contextlib.suppress(OSError):
                if marker in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
        return found

    def tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""
