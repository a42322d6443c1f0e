"""Recording throughput over HTTP: single-game POSTs/s and batch games/s, next to a bare DRF endpoint.

Run by hand (PostgreSQL and Redis on 127.0.0.1):  .venv/bin/python -m bench.recording_bench [--rounds 5]
Serves Arena with gunicorn on a scratch database (``--database``, default ``arena_bench_rec``, dropped and created
afresh) and its own Redis db (``--redis-db``, default 13), so nothing else is touched; give each concurrent run its
own pair.
Targets (issue 24): single POST >= 0.5x the bare endpoint; batch >= 4,000 games/s (issue 2 asked 0.4x, 3,000).
Beside each rate, the server's CPU (gunicorn's master and workers, from /proc) per request or per game: on a
machine other work keeps busy the rates measure the queue for a core, the CPU what Arena's code costs.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time

from bench.harness import Client, fresh_database, gunicorn, manage, run_threads, server_cpu, service_env, table

_ids = itertools.count()


def wizard_game(rng: random.Random) -> dict:
    n = rng.randint(3, 6)
    names = rng.sample(range(50_000), n)
    return {
        "table_id": f"B-{time.time_ns()}-{next(_ids)}",
        "game": "wizard",
        "players": [
            {"player": f"p{x}", "ip": f"203.0.{x % 256}.{x // 256 % 256}", "score": rng.randint(-50, 400)}
            for x in names
        ],
    }


def load(port: int, path: str, make_body, seconds: float, threads: int, headers: dict) -> tuple[int, float, float]:
    """(requests done, seconds, server CPU seconds over them)."""

    def work(i: int) -> int:
        rng = random.Random(i)
        client = Client(port, headers)
        done = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            status, body, _ = client.call("POST", path, make_body(rng))
            assert status in (200, 201), (status, body)
            done += 1
        return done

    cpu = server_cpu(port)
    done, elapsed = run_threads(threads, work)
    return done, elapsed, server_cpu(port) - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=4, help="per measure and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=8, help="client keep-alive connections")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--server-threads", type=int, default=4)
    parser.add_argument("--database", default="arena_bench_rec", help="scratch database (dropped and recreated)")
    parser.add_argument("--redis-db", type=int, default=13, help="Redis database number of the run")
    args = parser.parse_args()

    env = service_env(args.database, args.redis_db, BENCH_ENDPOINTS="true")
    fresh_database(env)
    key = manage(env, "create_game_server", "bench", "--quiet-key").strip()
    auth = {"Authorization": f"Api-Key {key}"}
    batch_size = 500
    rounds: list[tuple[float, float, float]] = []
    cpu: list[tuple[float, float, float]] = []  # server CPU ms per request / game / game
    with gunicorn(env, workers=args.workers, threads=args.server_threads) as port:
        # Warm up both paths (imports, connections) before measuring.
        load(port, "/bench/bare/", wizard_game, 1, 2, {})
        load(port, "/api/v1/games/", wizard_game, 1, 2, auth)
        # The three measures take turns, round after round: these machines are noisy (a neighbour's load comes
        # and goes), and a ratio taken within one round compares like with like.
        for _ in range(args.rounds):
            bare_n, bare_s, bare_cpu = load(port, "/bench/bare/", wizard_game, args.seconds, args.threads, {})
            single_n, single_s, single_cpu = load(port, "/api/v1/games/", wizard_game, args.seconds, args.threads, auth)
            batch_n, batch_s, batch_cpu = load(
                port,
                "/api/v1/games/batch/",
                lambda rng: {"games": [wizard_game(rng) for _ in range(batch_size)]},
                args.seconds,
                max(2, args.threads // 2),
                auth,
            )
            rounds.append((bare_n / bare_s, single_n / single_s, batch_n * batch_size / batch_s))
            cpu.append(
                (bare_cpu * 1000 / bare_n, single_cpu * 1000 / single_n, batch_cpu * 1000 / (batch_n * batch_size))
            )
    bare, single, batch = (statistics.median(r[i] for r in rounds) for i in range(3))
    single_ratio = statistics.median(r[1] / r[0] for r in rounds)
    bare_ms, single_ms, batch_ms = (statistics.median(c[i] for c in cpu) for i in range(3))
    print(
        table(
            [
                ("measure (median of rounds)", "rate", "vs baseline", "target", "rounds", "server CPU ms each"),
                (
                    "bare DRF endpoint (req/s)",
                    f"{bare:,.0f}",
                    "1.00x",
                    "baseline",
                    _spread([r[0] for r in rounds]),
                    f"{bare_ms:.3f}",
                ),
                (
                    "single game POST (games/s)",
                    f"{single:,.0f}",
                    f"{single_ratio:.2f}x",
                    ">= 0.50x",
                    _spread([r[1] / r[0] for r in rounds], "{:.2f}x"),
                    f"{single_ms:.3f}",
                ),
                (
                    f"batch of {batch_size} (games/s)",
                    f"{batch:,.0f}",
                    f"{batch / bare:.2f}x",
                    ">= 4,000 games/s",
                    _spread([r[2] for r in rounds]),
                    f"{batch_ms:.3f}",
                ),
            ]
        )
    )
    print(
        f"in CPU, the load's weight left out: a single POST costs {single_ms / bare_ms:.2f}x the bare endpoint "
        f"(the goal's 0.5x in rate is at most 2.00x); a batch's game {batch_ms:.3f} ms "
        f"(4,000 games/s on {args.workers} workers is at most {args.workers * 1000 / 4000:.3f} ms)"
    )
    print(
        f"gunicorn: {args.workers} workers x {args.server_threads} threads; client: {args.threads} keep-alive "
        f"connections; {args.rounds} rounds of {args.seconds:.0f}s per measure"
    )


def _spread(values: list[float], fmt: str = "{:,.0f}") -> str:
    values = sorted(values)
    return f"{fmt.format(values[0])} .. {fmt.format(values[-1])}"


if __name__ == "__main__":
    main()
