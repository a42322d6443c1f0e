"""One pass's working state: every live ticket read once into plain lists indexed by its place in Elo order, and
the tickets still waiting as a doubly linked list in that order.

Why it is written this way: a pass over 100,000 tickets must take a few seconds in CPython. A seated ticket leaves
the linked list in O(1), and the nearest waiting tickets in Elo are its neighbours there (``candidates``). Most
tickets are one player who blocks nobody and refuses nothing ("plain"): for them nothing is built but numbers and
their handle; the sets a rule between parties, blocks or refusals needs are made only for the tickets that have
them (``handles``, ``addresses``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matchmaking.engine.rules import BETA_SQ, TOLERANCE_BASE, TOLERANCE_MAX, TOLERANCE_PER_SECOND
from matchmaking.engine.tickets import (
    Ticket,
    any_provisional,
    avoids_provisional,
    lowest_reputation,
    strictest_minimum,
)


def ordered(keys: list[float], ids: list[str]) -> list[int]:
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
        strength = [u.strength for u in live]
        by_elo = ordered(strength, [u.id for u in live])
        units = [live[i] for i in by_elo]
        self.units = units
        self.now, self.recommended, self.game_low, self.game_high = now, recommended, game_low, game_high
        self.elo = [strength[i] for i in by_elo]
        self.wait = [now - u.queued_at for u in units]
        # tolerance() inlined: the pass computes it once per ticket, not once per comparison.
        self.tol = [min(TOLERANCE_MAX, TOLERANCE_BASE + TOLERANCE_PER_SECOND * max(0.0, w)) for w in self.wait]
        self.least = [u.min_players for u in units]
        self.most = [u.max_players for u in units]
        parties = [u.party for u in units]
        self.seats = [len(p) + 1 for p in parties]
        self.handle = [u.player for u in units]
        self.ip = [u.ip_hash for u in units]
        self.blocked = [u.blocked.union(*(m.blocked for m in u.party)) if u.party else u.blocked for u in units]
        self.refuses = [
            u.refuses_same_ip or any(m.refuses_same_ip for m in u.party) if u.party else u.refuses_same_ip
            for u in units
        ]
        # avoid_provisional (docs/matchmaking.md): a ticket that asks it is never plain, so every pair it is in goes
        # through pair_allowed, which checks it; a pool where nobody asks it pays nothing.
        self.avoids = [avoids_provisional(u) for u in units]
        self.provisional = [any_provisional(u) for u in units]
        self.provisional_rule = any(self.avoids)
        # Between two plain tickets only Elo, the handles and reputations need comparing.
        self.plain = [
            not (u.party or u.blocked or u.refuses_same_ip or avoid)
            for u, avoid in zip(units, self.avoids, strict=True)
        ]
        self._read_reputations(units)
        with_party = [i for i, p in enumerate(parties) if p]
        self.party_players = {i: frozenset(units[i].players) for i in with_party}
        self.party_ips = {i: frozenset((units[i].ip_hash, *(m.ip_hash for m in units[i].party))) for i in with_party}
        self._read_skills(units, with_party)
        # The order a table search tries candidates in: largest shrink factor first, then longest wait.
        self.try_key = [(-x, -w) for x, w in zip(self.top_shrink, self.wait, strict=True)]
        count = len(units)
        self.before = list(range(-1, count - 1))
        self.after = list(range(1, count + 1))
        self.waiting = bytearray(b"\x01") * count
        self.serve_order = ordered([u.queued_at for u in units], [u.id for u in units])
        # A table's tickets are listed in serving order (longest waiting first).
        self.serve_rank = [0] * count
        for rank, i in enumerate(self.serve_order):
            self.serve_rank[i] = rank

    def _read_reputations(self, units: list[Ticket]) -> None:
        """Reputation (docs/matchmaking.md): each ticket's least known reputation (+inf: none known, meets every
        minimum) and its strictest minimum (-inf: none). Two tickets fit when neither minimum exceeds the other's
        least reputation; with nobody asking a minimum the checks are skipped (``reputation_rule`` False)."""
        inf = math.inf
        self.rep_low = [
            (inf if u.reputation is None else u.reputation) if not u.party else lowest_reputation(u) for u in units
        ]
        self.rep_min = [
            (-inf if u.min_reputation is None else u.min_reputation) if not u.party else strictest_minimum(u)
            for u in units
        ]
        self.reputation_rule = any(m > -inf for m in self.rep_min)

    def _read_skills(self, units: list[Ticket], with_party: list[int]) -> None:
        """TrueSkill per seat: weight u = 1 / (beta² + sigma²) and mu, the terms of quality() (see there). A lone
        player's are two numbers; a party's, one (u, mu) per seat (``party_skills``)."""
        beta_sq = BETA_SQ
        self.mu = [u.skill[0] for u in units]
        self.weight = [1.0 / (beta_sq + u.skill[1] * u.skill[1]) for u in units]
        self.shrink = [beta_sq * w for w in self.weight]
        # The largest shrink factor of a seat of the ticket: the shrink factor itself for a lone player.
        self.top_shrink = list(self.shrink) if with_party else self.shrink
        self.party_skills: dict[int, list[tuple[float, float]]] = {}
        for i in with_party:
            u = units[i]
            skills = [(1.0 / (beta_sq + sk[1] * sk[1]), sk[0]) for sk in (u.skill, *(m.skill for m in u.party))]
            self.party_skills[i] = skills
            self.weight[i] = sum(w for w, _ in skills)
            self.shrink[i] = math.prod(beta_sq * w for w, _ in skills)
            self.top_shrink[i] = max(beta_sq * w for w, _ in skills)

    def remove(self, i: int) -> None:
        """A seated ticket leaves the waiting list: its neighbours become each other's."""
        self.waiting[i] = 0
        below, above = self.before[i], self.after[i]
        if below >= 0:
            self.after[below] = above
        if above < len(self.units):
            self.before[above] = below

    def handles(self, i: int) -> frozenset[str]:
        found = self.party_players.get(i)
        return frozenset((self.handle[i],)) if found is None else found

    def addresses(self, i: int) -> frozenset[str]:
        found = self.party_ips.get(i)
        return frozenset((self.ip[i],)) if found is None else found

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
        blocked = self.blocked
        if blocked[a] and not blocked[a].isdisjoint(players_b):
            return False
        if blocked[b] and not blocked[b].isdisjoint(players_a):
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
