"""One pass's working state: every live ticket read once into arrays of numbers indexed by its place in Elo order,
and the tickets still waiting as a doubly linked list in that order (with, where minimum reputations are asked,
a list per reputation band: ``bands``).

Why it is written this way: a pass over 100,000 tickets must take a few seconds in CPython. A seated ticket leaves
the linked list in O(1), and the nearest waiting tickets in Elo are its neighbours there (``candidates``). Most
tickets are one player who blocks nobody and refuses nothing ("plain"): for them nothing is built but numbers and
their handle; the sets a rule between parties, blocks or refusals needs are made only for the tickets that have
them (``handles``, ``addresses``).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from typing import TypeVar

from matchmaking.engine.bands import Bands
from matchmaking.engine.rules import BETA_SQ, TOLERANCE_BASE, TOLERANCE_MAX, TOLERANCE_PER_SECOND
from matchmaking.engine.tickets import (
    Ticket,
    any_provisional,
    avoids_provisional,
    lowest_reputation,
    strictest_minimum,
)

Column = TypeVar("Column", "array[float]", "array[int]")


def _in_elo_order(columns: list[Column], by_elo: list[int]) -> list[Column]:
    """The ``columns`` (each in the pool's order, all of one type) in Elo order. Gathered a ticket's row at a time
    from one interleaved array: one scattered read per ticket instead of one per column, which at 100,000 tickets
    (arrays beyond the caches) cost more than all the rest of the gathering."""
    width, count = len(columns), len(by_elo)
    first = columns[0]
    rows = first[:0] + first[:1] * (width * count) if count else first[:0]
    for j, column in enumerate(columns):
        rows[j::width] = column
    out = rows[:0]
    for i in by_elo:
        start = i * width
        out += rows[start : start + width]
    return [out[j::width] for j in range(width)]


def _tolerances(waits: Sequence[float]) -> list[float]:
    """rules.tolerance() of each wait, inlined with min() and max() spelt as comparisons: the same values (for a
    wait at or below 0, 150 exactly; then 150 + 10·w up to 800), without two calls per ticket."""
    base, per, most = TOLERANCE_BASE, TOLERANCE_PER_SECOND, TOLERANCE_MAX
    widths = [base + per * w if w > 0.0 else base for w in waits]
    return [w if w < most else most for w in widths]


def _refuses(u: Ticket) -> bool:
    """One of the ticket's players refuses same-IP tables."""
    return u.refuses_same_ip or any(m.refuses_same_ip for m in u.party)


def ordered(keys: Sequence[float], ids: list[str]) -> list[int]:
    """Positions sorted by ``keys``, exact ties by id (so that a pass does not depend on the order the pool was
    read in). Sorting bare floats is several times cheaper than sorting (float, id) pairs; with ties, a stable
    sort by key over positions already in id order settles them the same way."""
    order = sorted(range(len(keys)), key=keys.__getitem__)
    if len(set(keys)) < len(keys):
        order = sorted(range(len(keys)), key=ids.__getitem__)
        order.sort(key=keys.__getitem__)
    return order


class PassState:
    """The live tickets as parallel lists in Elo order, who still waits, and the rules between two of them."""

    def __init__(self, live: Sequence[Ticket], now: float, recommended: int, game_low: int, game_high: int):
        # Every column is read from the tickets in the pool's order (the order they were made in, so their order in
        # memory), as an array of machine numbers, and only then put in Elo order. Reading 100,000 ticket objects,
        # or lists of float objects, in Elo order touched a scattered object per value, and made each ticket of a
        # 100,000 pool dearer than one of a 10,000 pool (issue 24 §3). The objects themselves (the tickets, their
        # handles, addresses and blocks) are only reached for the few tickets whose rules need them (``unit``).
        self.live = live
        self.now, self.recommended, self.game_low, self.game_high = now, recommended, game_low, game_high
        strength = array("d", [u.elo if not u.party else u.strength for u in live])
        ids = [u.id for u in live]
        queued = array("d", [u.queued_at for u in live])
        by_elo = self.by_elo = ordered(strength, ids)
        inf = math.inf
        # Reputation (docs/matchmaking.md): each ticket's least known reputation (+inf: none known, meets every
        # minimum) and its strictest minimum (-inf: none). Two tickets fit when neither minimum exceeds the other's
        # least reputation; with nobody asking a minimum the checks are skipped (``reputation_rule`` False).
        low = [(inf if u.reputation is None else u.reputation) if not u.party else lowest_reputation(u) for u in live]
        least = [
            (-inf if u.min_reputation is None else u.min_reputation) if not u.party else strictest_minimum(u)
            for u in live
        ]
        self.reputation_rule = any(m > -inf for m in least)
        # TrueSkill per seat: weight u = 1 / (beta² + sigma²) and mu, the terms of quality() (see there); a party's
        # are set below (``_read_party_skills``).
        skills = [u.skill for u in live]
        elo, queued_in_order, self.rep_low, self.rep_min, self.mu, self.weight = _in_elo_order(
            [
                strength,
                queued,
                array("d", low),
                array("d", least),
                array("d", [mu for mu, _ in skills]),
                array("d", [1.0 / (BETA_SQ + sigma * sigma) for _, sigma in skills]),
            ],
            by_elo,
        )
        self.elo = elo
        self.wait = array("d", [now - q for q in queued_in_order])
        # tolerance() inlined: the pass computes it once per ticket, not once per comparison.
        self.tol = array("d", _tolerances(self.wait))
        # The handles as numbers (equal handles, equal numbers): two plain tickets are compared on these.
        numbers: dict[str, int] = {}
        self.least, self.most, self.seats, self.player_no, refuses, avoids, provisional, plain = _in_elo_order(
            [
                array("q", [u.min_players for u in live]),
                array("q", [u.max_players for u in live]),
                array("q", [len(u.party) + 1 for u in live]),
                array("q", [numbers.setdefault(u.player, len(numbers)) for u in live]),
                # A lone player's own flags; the functions that look through a party only for a party.
                array("q", [u.refuses_same_ip if not u.party else _refuses(u) for u in live]),
                array("q", [u.avoid_provisional if not u.party else avoids_provisional(u) for u in live]),
                array("q", [u.provisional if not u.party else any_provisional(u) for u in live]),
                # Between two plain tickets only Elo, the player numbers and reputations need comparing.
                array("q", [not (u.party or u.blocked or u.refuses_same_ip or u.avoid_provisional) for u in live]),
            ],
            by_elo,
        )
        self.refuses = [bool(r) for r in refuses]
        # avoid_provisional (docs/matchmaking.md): a ticket that asks it is never plain, so every pair it is in goes
        # through pair_allowed, which checks it; a pool where nobody asks it pays nothing.
        self.avoids, self.provisional, self.plain = (bytearray(c.tolist()) for c in (avoids, provisional, plain))
        self.provisional_rule = any(self.avoids)
        with_party = [i for i, seats in enumerate(self.seats) if seats > 1]
        units = {i: self.unit(i) for i in with_party}
        self.party_players = {i: frozenset(u.players) for i, u in units.items()}
        self.party_ips = {i: frozenset((u.ip_hash, *(m.ip_hash for m in u.party))) for i, u in units.items()}
        self._read_party_skills(units)
        count = self.end = len(live)
        self.before = list(range(-1, count - 1))
        self.after = list(range(1, count + 1))
        self.waiting = bytearray(b"\x01") * count
        self.bands = Bands(self.rep_low, self.rep_min, self.waiting) if self.reputation_rule else None
        # Serving order (longest waiting first) over the pool, then as places in Elo order.
        place = [0] * count
        for i, j in enumerate(by_elo):
            place[j] = i
        self.serve_order = [place[j] for j in ordered(queued, ids)]
        # A table's tickets are listed in serving order.
        self.serve_rank = [0] * count
        for rank, i in enumerate(self.serve_order):
            self.serve_rank[i] = rank

    def unit(self, i: int) -> Ticket:
        """The ticket at place ``i`` in Elo order."""
        return self.live[self.by_elo[i]]

    def _read_party_skills(self, units: dict[int, Ticket]) -> None:
        """The TrueSkill terms of the ticket's seats: a lone player's are two numbers (``mu``, ``weight``); a
        party's (``units``), one (u, mu) per seat (``party_skills``)."""
        beta_sq = BETA_SQ
        self.shrink = array("d", [beta_sq * w for w in self.weight])
        # The largest shrink factor of a seat of the ticket: the shrink factor itself for a lone player.
        self.top_shrink = array("d", self.shrink) if units else self.shrink
        self.party_skills: dict[int, list[tuple[float, float]]] = {}
        for i, u in units.items():
            seat_skills = [(1.0 / (beta_sq + sk[1] * sk[1]), sk[0]) for sk in (u.skill, *(m.skill for m in u.party))]
            self.party_skills[i] = seat_skills
            self.weight[i] = sum(w for w, _ in seat_skills)
            self.shrink[i] = math.prod(beta_sq * w for w, _ in seat_skills)
            self.top_shrink[i] = max(beta_sq * w for w, _ in seat_skills)

    def remove(self, i: int) -> None:
        """A seated ticket leaves the waiting list: its neighbours become each other's (the reputation bands pass over
        it when they meet it, ``bands``)."""
        self.waiting[i] = 0
        below, above = self.before[i], self.after[i]
        if below >= 0:
            self.after[below] = above
        if above < self.end:
            self.before[above] = below

    def blocked(self, i: int) -> frozenset[str]:
        """Whom the ticket's players blocked."""
        u = self.unit(i)
        return u.blocked.union(*(m.blocked for m in u.party)) if u.party else u.blocked

    def handles(self, i: int) -> frozenset[str]:
        found = self.party_players.get(i)
        return frozenset((self.unit(i).player,)) if found is None else found

    def addresses(self, i: int) -> frozenset[str]:
        found = self.party_ips.get(i)
        return frozenset((self.unit(i).ip_hash,)) if found is None else found

    def pair_allowed(self, a: int, b: int) -> bool:
        """The rules between two tickets: mutual acceptance, no block either way, and the same-IP refusal of
        either. The refusal of a third ticket is a rule about the whole table (``addresses_apart``)."""
        gap = self.elo[a] - self.elo[b]
        if gap < 0:
            gap = -gap
        if gap > self.tol[a] or gap > self.tol[b]:
            return False
        if self.reputation_rule and (self.rep_min[a] > self.rep_low[b] or self.rep_min[b] > self.rep_low[a]):
            return False
        if self.provisional_rule and (
            (self.avoids[a] and self.provisional[b]) or (self.avoids[b] and self.provisional[a])
        ):
            return False
        players_a, players_b = self.handles(a), self.handles(b)
        if not players_a.isdisjoint(players_b):
            return False
        if not self.blocked(a).isdisjoint(players_b) or not self.blocked(b).isdisjoint(players_a):
            return False
        return not ((self.refuses[a] or self.refuses[b]) and not self.addresses(a).isdisjoint(self.addresses(b)))

    def addresses_apart(self, served: int, others: list[int]) -> bool:
        """Someone at the table refuses same-IP tables: no two tickets may share an IP hash (within a party
        they may)."""
        seen = set(self.addresses(served))
        for other in others:
            mine = self.addresses(other)
            if not seen.isdisjoint(mine):
                return False
            seen |= mine
        return True

    def centred(self, i: int, reference: float) -> tuple[float, float]:
        """The ticket's sums of quality() relative to ``reference`` (a mu): sum(u·d) and sum(u·d²), d = mu - it."""
        skills = self.party_skills.get(i)
        if skills is None:
            skills = [(self.weight[i], self.mu[i])]
        moment = square = 0.0
        for w, mu in skills:
            d = mu - reference
            moment += w * d
            square += w * d * d
        return moment, square
