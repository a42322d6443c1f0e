"""Pairing 10,000 players at 4-seat tables (issue 29: at most 1 s), run by hand:

    .venv/bin/python bench/pairing_bench.py [--players 10000] [--rounds 5]

Plays ``--rounds`` Swiss rounds with random places through ``tournaments.pairing.pair_round`` (pure, no database)
and prints each round's pairing time beside a same-run baseline: the plain top-down fill in ranking order (BGA's
"board 1, board 2", repeats not avoided), with the repeats and the first-seat spread each leaves.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.pairing import Entrant, pair_round, repeats_of, table_plan


def baseline(entrants: list[Entrant], size: int, low: int) -> list[tuple[int, ...]]:
    """Top-down fill: ranking order cut into the planned tables, byes from the bottom."""
    plan = table_plan(len(entrants), size, low)
    seated = [e.player for e in entrants[:len(entrants) - plan.byes]]
    tables, k = [], 0
    for s in plan.sizes:
        tables.append(tuple(seated[k:k + s]))
        k += s
    return tables


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    n = args.players
    points = dict.fromkeys(range(n), 0)
    mates: dict[int, set[int]] = {p: set() for p in range(n)}
    firsts = dict.fromkeys(range(n), 0)
    byes = dict.fromkeys(range(n), 0)
    print(f"{n} players, 4-seat tables (range 3-5), {args.rounds} rounds; target: each pairing <= 1.000 s")
    for rnd in range(1, args.rounds + 1):
        order = sorted(range(n), key=lambda p: (-points[p], p))
        entrants = [Entrant(p, points[p], frozenset(mates[p]), firsts[p], byes[p]) for p in order]
        started = time.perf_counter()
        base = baseline(entrants, 4, 3)
        base_time = time.perf_counter() - started
        started = time.perf_counter()
        pairing = pair_round(entrants, 4, 3)
        elapsed = time.perf_counter() - started
        known = {p: frozenset(m) for p, m in mates.items()}
        base_repeats = sum(len(repeats_of(t, known)) for t in base)
        for p in pairing.byes:
            byes[p] += 1
        for table in pairing.tables:
            firsts[table.seats[0]] += 1
            scores = [2 * (len(table.seats) - k - 1) for k in range(len(table.seats))]
            rng.shuffle(scores)
            for p, s in zip(table.seats, scores, strict=True):
                points[p] += s
                mates[p].update(q for q in table.seats if q != p)
        spread = max(firsts.values()) - min(firsts.values())
        print(f"round {rnd}: pair_round {elapsed:.3f} s ({len(pairing.tables)} tables, {pairing.repeats} repeats, "
              f"seat shortfall {pairing.seat_shortfall}, "
              f"first-seat spread {spread}) | baseline top-down fill {base_time:.3f} s, {base_repeats} repeats"
              f" | {'OK' if elapsed <= 1.0 else 'OVER 1 s'}")


if __name__ == "__main__":
    main()
