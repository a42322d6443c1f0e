"""What every benchmark needs: a scratch database, a gunicorn serving Arena, a keep-alive HTTP load, figures.

Benchmarks compare against a baseline measured in the same run, because these machines are noisy: a ratio is
meaningful where an absolute figure is not.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# The gunicorn master serving each port (``start_gunicorn``), for ``server_cpu``.
_MASTERS: dict[int, int] = {}


def say(*parts: object) -> None:
    """Print at once: a bench's lines reach a pipe (the tiny-size test, a log) as they come, not at its exit."""
    print(*parts, flush=True)


def service_env(database: str, redis_db: int, **extra: str) -> dict[str, str]:
    """Environment for Arena processes of a benchmark: its own Postgres database and Redis db index."""
    base = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"{base}/{database}",
        REDIS_URL=f"redis://127.0.0.1:6379/{redis_db}",
        DEBUG="false",
        SECRET_KEY="bench-secret-key-" + "b" * 48,
        IP_HASH_KEY="bench-ip-hash-key-" + "b" * 32,
        LOG_LEVEL="WARNING",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        # Plain HTTP on loopback, and one client sending as fast as it can (docs/security.md: the limits).
        SECURE_SSL_REDIRECT="false",
        API_WRITE_THROTTLE_RATE="none",
        **extra,
    )
    return env


def fresh_database(env: dict[str, str]) -> None:
    """Drop, create and migrate the benchmark's database; or, given ``ARENA_BENCH_TEMPLATE`` (a migrated database on
    the same server: the test suite's, tests/migrated.py), create it as a copy of that, which is the same schema
    without a minute of migrations."""
    name = env["DATABASE_URL"].rsplit("/", 1)[1]
    template = env.get("ARENA_BENCH_TEMPLATE")
    create = f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")
    for sql in (f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', create):
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], check=True)
    if not template:
        manage(env, "migrate", "--no-input", "-v", "0")


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(env: dict[str, str], workers: int = 2, threads: int = 4) -> tuple[subprocess.Popen, int]:
    """Serve Arena with gunicorn and wait until it answers; the caller stops it. The worker class is the
    Procfile's (config/gunicorn.py names it): gthread reading headers in its event loop, config/http_worker.py."""
    port = free_port()
    proc = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "gunicorn",
            "config.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            str(workers),
            "--worker-class",
            "config.http_worker.HeaderBufferingWorker",
            "--threads",
            str(threads),
            "--log-level",
            "warning",
            "--keep-alive",
            "30",
        ],
        cwd=ROOT,
        env=env,
    )
    deadline = time.monotonic() + 120  # a bound, not a pause: a busy machine (CI beside other passes) starts slowly
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                _MASTERS[port] = proc.pid
                return proc, port
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("gunicorn did not start")


def server_cpu(port: int) -> float:
    """CPU seconds (user + system) the gunicorn on ``port`` and its workers have used so far (Linux ``/proc``).

    The difference across a measure is the server's CPU per request, which a loaded machine does not inflate as it
    does the wall clock (the load's client threads run in the benchmark's own process and are left out)."""
    master = _MASTERS[port]
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in [master, *map(int, children)]:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # a worker gone between the two reads
            continue
        total += int(fields[11]) + int(fields[12])  # utime and stime: the stat line's 14th and 15th fields
    return total / ticks


@contextmanager
def gunicorn(env: dict[str, str], workers: int = 2, threads: int = 4) -> Iterator[int]:
    """``start_gunicorn`` for the length of a block; yields the port."""
    proc, port = start_gunicorn(env, workers, threads)
    try:
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(60)  # gunicorn's graceful stop: its workers finish their requests (slow on a busy machine)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


class Client:
    """One keep-alive HTTP connection; returns (status, parsed JSON, seconds)."""

    def __init__(self, port: int, headers: dict[str, str] | None = None):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Content-Type": "application/json", **(headers or {})}

    def call(self, method: str, path: str, body: object = None) -> tuple[int, object, float]:
        payload = json.dumps(body).encode() if body is not None else None
        start = time.perf_counter()
        self.conn.request(method, path, body=payload, headers=self.headers)
        response = self.conn.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - start
        return response.status, (json.loads(data) if data else None), elapsed


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50 and p99 in milliseconds."""
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return {"p50": pick(0.50), "p99": pick(0.99), "mean": statistics.fmean(ordered) * 1000}


def run_threads(count: int, work: Callable[[int], int]) -> tuple[int, float]:
    """Run ``work(i)`` on ``count`` threads; returns (total units done, wall seconds)."""
    from concurrent.futures import ThreadPoolExecutor

    start = time.perf_counter()
    with ThreadPoolExecutor(count) as pool:
        done = sum(pool.map(work, range(count)))
    return done, time.perf_counter() - start


def table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)
