"""The stream part of ``bench/matchmaking_bench.py``: a simulated arrival stream through the pure engine, beside a
first-come-first-seated baseline on the same arrivals (that bench's docstring says what it reports). No database:
the same function the service calls, ``matchmaking.engine.match``, a pass every simulated second."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from bench.harness import say
from infra.gc_pause import gc_paused
from matchmaking import engine

RECOMMENDED, LOW, HIGH = 4, 2, 5
Choose = Callable[[list[engine.Ticket], float], list[tuple[engine.Ticket, ...]]]


def skill_of(rng: random.Random, elo: float) -> tuple[float, float]:
    """TrueSkill follows Elo loosely, as both are read off the same games; sigma from settled to new."""
    return 25.0 + (elo - 1500.0) / 50.0 + rng.gauss(0, 1.5), rng.uniform(1.5, 25 / 3)


def arrivals(rate_per_minute: int, minutes: float, seed: int) -> list[tuple[float, str, float, tuple]]:
    """(time, player, elo, skill) per arrival: a Poisson stream from a population of players, each queueing
    again only after their previous ticket closed (the simulation enforces that)."""
    rng = random.Random(seed)
    population = max(rate_per_minute * 4, 1000)
    players = [(f"s{i}", rng.gauss(1500, 250)) for i in range(population)]
    out, t, rate = [], 0.0, rate_per_minute / 60.0
    while True:
        t += rng.expovariate(rate)
        if t >= minutes * 60:
            return out
        name, elo = players[rng.randrange(population)]
        out.append((t, name, elo, skill_of(rng, elo)))


def simulate(stream: list, seconds: float, choose: Choose) -> tuple[list[float], list[float], int]:
    """A pass every second over the tickets waiting; ``choose(waiting, now)`` returns the tables formed."""
    waiting: dict[str, engine.Ticket] = {}
    busy: set[str] = set()
    waits, spreads, expired = [], [], 0
    index = 0
    for second in range(1, int(seconds) + 1):
        now = float(second)
        while index < len(stream) and stream[index][0] <= now:
            at, name, elo, skill = stream[index]
            index += 1
            if name in busy:
                continue  # already queued: one open ticket per player and game
            busy.add(name)
            waiting[name] = engine.Ticket(
                id=name,
                player=name,
                ip_hash=f"ip-{name}",
                elo=elo,
                skill=skill,
                min_players=LOW,
                max_players=HIGH,
                refuses_same_ip=False,
                queued_at=at,
            )
        for ticket in engine.expired(list(waiting.values()), now):
            expired += 1
            del waiting[ticket.id]
            busy.discard(ticket.id)
        for table in choose(list(waiting.values()), now):
            elos = [t.elo for t in table]
            spreads.append(max(elos) - min(elos))
            for t in table:
                waits.append(now - t.queued_at)
                del waiting[t.id]
                busy.discard(t.id)
    return waits, spreads, expired


def by_engine(pool: list[engine.Ticket], now: float) -> list[tuple[engine.Ticket, ...]]:
    with gc_paused():  # as pool_run runs the engine
        return [t.tickets for t in engine.match(pool, now, recommended=RECOMMENDED, game_min=LOW, game_max=HIGH)]


def first_come(pool: list[engine.Ticket], now: float) -> list[tuple[engine.Ticket, ...]]:
    """The baseline: whoever came first, in groups of the recommended size; Elo, blocks and quality unseen."""
    ordered = sorted(pool, key=lambda t: t.queued_at)
    return [tuple(ordered[i : i + RECOMMENDED]) for i in range(0, len(ordered) - RECOMMENDED + 1, RECOMMENDED)]


def report(name: str, waits: list[float], spreads: list[float], expired: int, cpu: float) -> None:
    waits = sorted(waits)
    p95 = waits[int(0.95 * (len(waits) - 1))] if waits else float("nan")
    say(
        f"{name:<22} seated {len(waits):>6,}  wait median {statistics.median(waits):5.1f} s  p95 {p95:6.1f} s  "
        f"mean Elo spread {statistics.fmean(spreads):6.1f}  tables {len(spreads):>5,}  expired {expired:>4}  "
        f"({cpu:.1f} s of passes)"
    )


def bench_stream(rate: int, minutes: float, seed: int) -> None:
    stream = arrivals(rate, minutes, seed)
    say(f"stream: {len(stream):,} arrivals over {minutes:g} min ({rate:,}/min), a pass every second")
    for name, choose in (("matchmaker", by_engine), ("first come first seated", first_come)):
        started = time.process_time()
        waits, spreads, expired = simulate(stream, minutes * 60 + 60, choose)
        report(name, waits, spreads, expired, time.process_time() - started)
