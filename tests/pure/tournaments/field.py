"""A Swiss field played with random results, for the pairing tests and bench/pairing_bench.py (one copy of the
bookkeeping: points, table-mates, first seats and byes, and a round's random places)."""

from __future__ import annotations

import random

from tournaments.pairing import Entrant, Pairing


class SimulatedField:
    """``n`` players (ids 0..n-1); each round's places are a shuffle of 2·(size − place) points per table."""

    def __init__(self, n: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.points = dict.fromkeys(range(n), 0)
        self.mates: dict[int, set[int]] = {p: set() for p in range(n)}
        self.firsts = dict.fromkeys(range(n), 0)
        self.byes = dict.fromkeys(range(n), 0)

    def entrants(self) -> list[Entrant]:
        """Everyone in ranking order (points, then id), as the next round's pairing takes them."""
        order = sorted(self.points, key=lambda p: (-self.points[p], p))
        return [Entrant(p, self.points[p], frozenset(self.mates[p]), self.firsts[p], self.byes[p]) for p in order]

    def known(self) -> dict[int, frozenset[int]]:
        """Who has met whom so far."""
        return {p: frozenset(m) for p, m in self.mates.items()}

    def play(self, pairing: Pairing) -> None:
        """Record a round: byes, first seats, random places and the new table-mates."""
        for p in pairing.byes:
            self.byes[p] += 1
        for table in pairing.tables:
            self.firsts[table.seats[0]] += 1
            scores = [2 * (len(table.seats) - k - 1) for k in range(len(table.seats))]
            self.rng.shuffle(scores)
            for p, s in zip(table.seats, scores, strict=True):
                self.points[p] += s
                self.mates[p].update(q for q in table.seats if q != p)

    def first_seat_spread(self) -> int:
        return max(self.firsts.values()) - min(self.firsts.values())
