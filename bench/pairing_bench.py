"""Pairing 10,000 players at 4-seat tables (issue 29: at most 1 s), run by hand:

    .venv/bin/python bench/pairing_bench.py [--players 10000] [--rounds 5]

Plays ``--rounds`` Swiss rounds with random places through ``tournaments.pairing.pair_round`` (pure, no database)
and prints each round's pairing time beside a same-run baseline: the plain top-down fill in ranking order (BGA's
"board 1, board 2", repeats not avoided), with the repeats and the first-seat spread each leaves.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.pure.tournaments.field import SimulatedField
from tournaments.pairing import Entrant, pair_round, repeats_of, table_plan


def baseline(entrants: list[Entrant], size: int, low: int) -> list[tuple[int, ...]]:
    """Top-down fill: ranking order cut into the planned tables, byes from the bottom."""
    plan = table_plan(len(entrants), size, low)
    seated = [e.player for e in entrants[: len(entrants) - plan.byes]]
    tables, k = [], 0
    for s in plan.sizes:
        tables.append(tuple(seated[k : k + s]))
        k += s
    return tables


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    n = args.players
    field = SimulatedField(n, args.seed)
    print(f"{n} players, 4-seat tables (range 3-5), {args.rounds} rounds; target: each pairing <= 1.000 s")
    for rnd in range(1, args.rounds + 1):
        entrants = field.entrants()
        started = time.perf_counter()
        base = baseline(entrants, 4, 3)
        base_time = time.perf_counter() - started
        started = time.perf_counter()
        pairing = pair_round(entrants, 4, 3)
        elapsed = time.perf_counter() - started
        base_repeats = sum(len(repeats_of(t, field.known())) for t in base)
        field.play(pairing)
        spread = field.first_seat_spread()
        print(
            f"round {rnd}: pair_round {elapsed:.3f} s ({len(pairing.tables)} tables, {pairing.repeats} repeats, "
            f"seat shortfall {pairing.seat_shortfall}, "
            f"first-seat spread {spread}) | baseline top-down fill {base_time:.3f} s, {base_repeats} repeats"
            f" | {'OK' if elapsed <= 1.0 else 'OVER 1 s'}"
        )


if __name__ == "__main__":
    main()
