"""``scripts/load MINUTES``: the production shape on a private PostgreSQL and Redis (the fault suite's harness),
load/locustfile.py headless against it (locust as a library, loopback only), the figures per endpoint, and the
end state checked as the fault suite does. Exit status 1 on any 5xx, any failed request or a wrong end state.

Options: ``--rate R`` (target requests per second, default 60), ``--users N`` (default 30),
``--steps R1,R2,...`` (capacity: one run of MINUTES at each rate on the same site, figures for each),
``--reads web-read|web|both`` (where the public GETs go: the Procfile's read pool, as the proxy of
docs/scaling.md routes them, which is the default; ``web``; or each step twice, ``web`` then ``web-read``).
The public throttle is lifted (``PUBLIC_THROTTLE_RATE``): every simulated reader shares 127.0.0.1.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import locust  # noqa: F401  - first: it monkey-patches the standard library for gevent
from locust import constant_throughput

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            todo += [int(c) for c in Path(f"/proc/{current}/task/{current}/children").read_text().split()]
    return out


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes and all their descendants alive now (from /proc), in seconds."""
    total = 0
    for pid in {p for root in pids for p in _tree(root)}:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


def start_site(root: Path) -> tuple:
    from tests.faults.services import PrivatePostgres, PrivateRedis, free_port
    from tests.faults.shape import Shape, manage, production_env

    postgres, redis = PrivatePostgres(root / "pg"), PrivateRedis(root / "redis")
    postgres.init()
    redis.start()
    postgres.psql("CREATE DATABASE arena")
    env = production_env(
        database_url=postgres.url("arena"),
        redis_url=redis.url(),
        var_dir=root,
        bind=f"127.0.0.1:{free_port()}",
        ARENA_READ_BIND=f"127.0.0.1:{free_port()}",
        PUBLIC_THROTTLE_RATE="100000000/min",
    )
    manage(env, "migrate", "--no-input", timeout=600)
    # Every scope: the mix sets players' preferences too (as a site's account service would).
    key = manage(
        env, "create_game_server", "load", "--quiet-key", "--scope", "games", "matchmaking", "reports", "preferences"
    ).strip()
    shape = Shape(env=env, logs=root)
    shape.start_all()
    shape.wait_ready(timeout=120)
    _wait_read_pool(env["ARENA_READ_BIND"], timeout=120)
    return postgres, redis, shape, env, key


def _wait_read_pool(bind: str, timeout: float) -> None:
    """Until the Procfile's ``web-read`` answers ``/healthz`` (the shape waits for ``web`` only)."""
    import http.client

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            conn = http.client.HTTPConnection(*bind.split(":"), timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return
        time.sleep(0.3)
    raise RuntimeError(f"the read pool at {bind} did not answer /healthz")


def run_locust(url: str, seconds: float, users: int) -> object:
    import gevent
    from locust.env import Environment

    import load.locustfile as mix

    # stop_timeout: at the end each user finishes the request it is in, so every game sent has its answer.
    environment = Environment(
        user_classes=[mix.GameServer, mix.PublicReader, mix.Matchmaking], host=url, stop_timeout=60
    )
    environment.server_errors = 0

    def count_5xx(response: object = None, **_: object) -> None:
        if response is not None and getattr(response, "status_code", 0) >= 500:
            environment.server_errors += 1

    environment.events.request.add_listener(count_5xx)
    runner = environment.create_local_runner()
    runner.start(users, spawn_rate=max(1, users / 5))
    gevent.spawn_later(seconds, runner.quit)
    runner.greenlet.join()
    return environment


def table(environment: object, seconds: float) -> tuple[str, int, int]:
    stats = environment.stats
    lines = [f"{'endpoint':44} {'reqs':>7} {'rate/s':>7} {'p50':>6} {'p95':>6} {'p99':>6} {'max':>6} {'fail':>5}"]
    fails = 0
    for entry in sorted(stats.entries.values(), key=lambda e: e.name):
        lines.append(
            f"{entry.name:44} "
            f"{entry.num_requests:7d} {entry.num_requests / seconds:7.1f} "
            f"{entry.get_response_time_percentile(0.5):6.0f} {entry.get_response_time_percentile(0.95):6.0f} "
            f"{entry.get_response_time_percentile(0.99):6.0f} {entry.max_response_time:6.0f} "
            f"{entry.num_failures:5d}"
        )
        fails += entry.num_failures
    total = stats.total
    lines.append(
        f"{'total':44} {total.num_requests:7d} {total.num_requests / seconds:7.1f} "
        f"{total.get_response_time_percentile(0.5):6.0f} {total.get_response_time_percentile(0.95):6.0f} "
        f"{total.get_response_time_percentile(0.99):6.0f} {total.max_response_time:6.0f} "
        f"{total.num_failures:5d}   (times in ms)"
    )
    for error in stats.errors.values():
        lines.append(f"  error x{error.occurrences}: {error.name}: {str(error.error)[:200]}")
    import load.locustfile as mix

    lines.append(
        f"5xx answers: {environment.server_errors}; requests without an answer, sent again and answered: "
        f"{mix.RETRIED['count']}"
    )
    fails -= mix.RETRIED["count"]
    mix.RETRIED["count"] = 0
    return "\n".join(lines), fails, environment.server_errors


def main() -> int:
    parser = argparse.ArgumentParser(prog="scripts/load")
    parser.add_argument("minutes", type=float)
    parser.add_argument("--rate", type=float, default=float(os.environ.get("ARENA_LOAD_RATE", "60")))
    parser.add_argument("--users", type=int, default=int(os.environ.get("ARENA_LOAD_USERS", "30")))
    parser.add_argument("--steps", default="", help="capacity: comma-separated rates, MINUTES each")
    parser.add_argument("--no-check", action="store_true", help="skip the end-state check")
    parser.add_argument(
        "--reads",
        choices=("web-read", "web", "both"),
        default="web-read",
        help="where public GETs go: the read pool (as the proxy routes them), web, or each step "
        "twice, web then web-read (same site, same run)",
    )
    args = parser.parse_args()
    rates = [float(r) for r in args.steps.split(",") if r] or [args.rate]
    root = Path(tempfile.mkdtemp(prefix="arena-load-"))
    os.chmod(root, 0o755)
    postgres = redis = shape = None
    failed = False
    try:
        postgres, redis, shape, env, key = start_site(root)
        print(f"site up at {shape.url} (logs in {root})", flush=True)
        pools = {"both": ("web", "web-read")}.get(args.reads, (args.reads,))
        for rate, pool in ((rate, pool) for rate in rates for pool in pools):
            os.environ.update(ARENA_LOAD_KEY=key, ARENA_LOAD_RATE=str(rate), ARENA_LOAD_USERS=str(args.users))
            import load.locustfile as mix

            mix.KEY = key
            mix.READ_URL = f"http://{env['ARENA_READ_BIND']}" if pool == "web-read" else ""
            for user in (mix.GameServer, mix.PublicReader, mix.Matchmaking):
                user.wait_time = constant_throughput(rate / args.users)
            seconds = args.minutes * 60
            pids = [p.pid for p in shape.processes.values()]
            pg_before = cpu_seconds(_postgres_pids(postgres))
            before = cpu_seconds(pids)
            wall = time.monotonic()
            load_cpu = time.process_time()
            environment = run_locust(shape.url, seconds, args.users)
            elapsed = time.monotonic() - wall
            text, fails, fives = table(environment, elapsed)
            print(
                f"\n=== target {rate:.0f} req/s, {args.users} users, {elapsed:.0f} s, public reads on {pool} ===\n"
                f"{text}"
            )
            print(
                f"CPU over the run (cores busy): site {(cpu_seconds(pids) - before) / elapsed:.2f}, PostgreSQL "
                f"{(cpu_seconds(_postgres_pids(postgres)) - pg_before) / elapsed:.2f}, "
                f"locust {(time.process_time() - load_cpu) / elapsed:.2f} of {os.cpu_count()}; machine load "
                f"average {os.getloadavg()[0]:.1f} (other work on the machine skews the times)",
                flush=True,
            )
            failed |= fails > 0 or fives > 0
        if not args.no_check:
            failed |= not check(shape, env, root)
    finally:
        if shape is not None:
            shape.stop_all()
        if redis is not None:
            redis.destroy()
        if postgres is not None:
            postgres.destroy()
        shutil.rmtree(root, ignore_errors=True)
    print("\nFAILED" if failed else "\nOK")
    return 1 if failed else 0


def _postgres_pids(postgres: object) -> list[int]:
    pidfile = postgres.data / "postmaster.pid"
    try:
        return [int(pidfile.read_text().split()[0])]
    except (FileNotFoundError, ValueError):
        return []


def check(shape: object, env: dict, root: Path) -> bool:
    """tests/faults/check.py over what the load posted: exact ratings, no duplicates, no ticket seated twice."""
    import json

    import load.locustfile as mix

    spec = {"url": shape.url, "bound": 600, "tables": True, "server": None, "accepted": mix.accepted_spec()}
    path = root / "check.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "tests.faults.check", str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if done.returncode:
        print(f"end-state check FAILED:\n{done.stderr[-6000:]}")
        return False
    print(f"end-state check OK in {time.monotonic() - started:.0f} s: {done.stdout.strip().splitlines()[-1]}")
    return True


if __name__ == "__main__":
    threading.current_thread().name = "load"
    sys.exit(main())
