"""The matchmaking rules of ``docs/matchmaking.md`` as one pure function: a pool of tickets and a clock -> tables.

No Django, no database and no clock reads: the caller passes the pool and ``now``, so the Celery beat task, the
embedded mode and the tests run exactly the same pass, and a pass can be replayed by hand.

Why the rules look the way they do:

- **Tolerance grows with waiting.** A fresh ticket only accepts near-equals (150 Elo); every second of waiting
  widens that by 10, up to 800, so nobody waits forever for a perfect opponent. Acceptance is checked in both
  directions: a patient player must not be handed to a fresh one who has not yet agreed to the gap.
- **Fairness to the longest wait.** Tickets are served oldest first, and the served ticket picks its table
  before younger tickets can take its table-mates. A ticket that cannot be seated yet is skipped, not waited
  for, so one unmatched outlier never stalls the whole pool.
- **Size.** Before anyone at a candidate table has waited 30 s only the game's recommended size is formed;
  after that any size every member allows is accepted, and a larger table beats a smaller one. Size is compared
  before TrueSkill quality on purpose: quality falls as players are added, so comparing quality across sizes
  would always favour the smallest table and contradict "larger preferred".
- **Bounded search.** For the served ticket only the ``CANDIDATES`` compatible tickets nearest in Elo are
  considered (found by scanning at most ``SCAN_LIMIT`` tickets outward from its Elo), and tables are the
  combinations of them filling the table. With 8 candidates that is at most C(8, 4) = 70 tables per size,
  whatever the pool size, and branch and bound (see ``_Pass._search``) tries only a few of them, so a pass is
  linear in the pool: about 0.3 s of CPU per 10,000 fresh tickets. Nearest in Elo is where the most even tables
  almost always are; what the bound can miss is a table made only of players further away, and the served ticket
  is tried again on the next pass.
- **Parties.** A ticket may bring friends (``Ticket.party``): one unit of several seats, matched on its players'
  mean Elo and its own wait, never split. Blocks and same-IP refusals hold between units, never inside one. Its
  total wait counts each of its players (a party of three that waited 10 s has waited 30 player-seconds), and
  the table's TrueSkill quality takes every player as a side of one. A table needs two tickets at least: a party
  that fills a table by itself needs no matchmaker. Same-IP warnings name every player sharing an address,
  friends included, since the other players at the table have a right to know.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from arena.same_ip import shared_addresses
from ratings.skill import ENV

# A fresh ticket accepts table-mates this far from its own Elo: close enough for an even game.
TOLERANCE_BASE = 150.0
# Each second of waiting widens the tolerance by this much, so waiting always buys a match eventually.
TOLERANCE_PER_SECOND = 10.0
# Never wider than this: beyond 800 Elo the weaker player has under 1% chance, which is no game.
TOLERANCE_MAX = 800.0
# Once the oldest member of a candidate table has waited this long, sizes other than the recommended one are
# accepted: a smaller table now beats a full table later.
ANY_SIZE_AFTER = 30.0
# A ticket waiting this long expires (10 minutes): the player has most likely left.
EXPIRES_AFTER = 600.0
# A table needs at least two players, even in games that allow one: a solo game needs no matchmaking, and
# TrueSkill has no quality for a single side.
MIN_TABLE = 2
# Compatible tickets nearest in Elo that the served ticket considers: bounds the tables tried per size at
# C(8, size - 1), at most 70. 10 would find slightly more even six-player tables at four times the cost.
CANDIDATES = 8
# Tickets examined outward from the served ticket's Elo to find those candidates: bounds the scan when many
# nearby tickets are incompatible (blocked, same IP, other sizes).
SCAN_LIMIT = 200
# Qualities equal to this many decimals count as equal, so that floating-point noise never overrides the
# total-wait rule between tables that are equally even.
QUALITY_DIGITS = 9

# The one environment the ratings stage computes (mu, sigma) with: quality is only meaningful with the beta those
# ratings were made under. Its draw probability plays no part in match quality.
_BETA_SQ = ENV.beta**2


# Member and Ticket are not frozen: they are never changed once made, but a frozen dataclass takes five times
# longer to build, and a pass over 100,000 tickets builds 100,000 of them.
@dataclass(slots=True)
class Member:
    """A friend a ticket brings along (its party): seated with the ticket's player or not at all."""

    player: str
    ip_hash: str
    elo: float
    skill: tuple[float, float]
    refuses_same_ip: bool = False
    blocked: frozenset[str] = frozenset()


@dataclass(slots=True)
class Ticket:
    """A player's request to play, as the matchmaker sees it in one pool (game, variant, rated).

    With a ``party`` the ticket is one unit of several seats: its strength is the mean Elo of its players, it
    waits as one (its ``queued_at``), and blocks and same-IP refusals hold between it and everyone else, never
    inside it.
    """

    id: str
    player: str
    ip_hash: str
    elo: float
    # TrueSkill (mu, sigma) in this game.
    skill: tuple[float, float]
    min_players: int
    max_players: int
    refuses_same_ip: bool
    # Seconds on the caller's clock, the same clock as ``now``.
    queued_at: float
    # Handles of the players this player blocked.
    blocked: frozenset[str] = frozenset()
    party: tuple[Member, ...] = ()

    @property
    def seats(self) -> int:
        return 1 + len(self.party)

    @property
    def players(self) -> tuple[str, ...]:
        if not self.party:
            return (self.player,)
        return (self.player, *(m.player for m in self.party))

    @property
    def strength(self) -> float:
        """The Elo the ticket is matched on: its player's, or the mean of its party's (docs/matchmaking.md)."""
        if not self.party:
            return self.elo
        return (self.elo + sum(m.elo for m in self.party)) / self.seats


@dataclass(frozen=True, slots=True)
class TableWarning:
    """Something the players should know about a table they accepted; ``code`` is stable for programs."""

    code: str
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Table:
    """A formed table: its tickets, longest-waiting first, and one ``same_ip`` warning per shared IP hash."""

    tickets: tuple[Ticket, ...]
    warnings: tuple[TableWarning, ...] = ()

    @property
    def players(self) -> tuple[str, ...]:
        """Every seated player: each ticket's player then its party, tickets longest-waiting first."""
        if not any(ticket.party for ticket in self.tickets):
            return tuple(ticket.player for ticket in self.tickets)
        return tuple(player for ticket in self.tickets for player in ticket.players)


def tolerance(waited: float) -> float:
    """Elo gap a ticket accepts after ``waited`` seconds: ``150 + 10·w``, at most 800.

    A negative wait (a ticket stamped by a clock slightly ahead of the caller's) counts as no wait.
    """
    return min(TOLERANCE_MAX, TOLERANCE_BASE + TOLERANCE_PER_SECOND * max(0.0, waited))


def accepts(a: Ticket, b: Ticket, now: float) -> bool:
    """Whether ``a`` accepts ``b`` on Elo alone (a party on its mean Elo). One direction only: a table needs it
    both ways."""
    return abs(a.strength - b.strength) <= tolerance(now - a.queued_at)


def is_expired(ticket: Ticket, now: float) -> bool:
    """Whether the ticket has waited 10 minutes; an expired ticket is never matched."""
    return now - ticket.queued_at >= EXPIRES_AFTER


def expired(pool: Sequence[Ticket], now: float) -> list[Ticket]:
    """The tickets the caller should mark expired, in pool order."""
    return [ticket for ticket in pool if is_expired(ticket, now)]


def quality(skills: Sequence[tuple[float, float]]) -> float:
    """TrueSkill match quality of a free-for-all table (every player a side of one): ``ENV.quality`` exactly.

    Why not call ``ENV.quality``: the package builds and inverts matrices in pure Python, 80 µs for three players
    and 700 µs for six, which would make a pass over a large pool take seconds. For sides of one the matrices
    reduce to sums (the comparison matrix spans the differences of skills, whatever order it takes them in):
    with ``v_i = beta² + sigma_i²`` and weights ``u_i = 1 / v_i``,

        quality = sqrt(prod(beta² · u_i) · n / (beta² · sum(u_i))) · exp(-sum(u_i · (mu_i - m)²) / 2),

    ``m`` being the u-weighted mean of the mus. A unit test checks it against ``ENV.quality`` on random tables.
    """
    if len(skills) < MIN_TABLE:
        raise ValueError(f"match quality needs at least {MIN_TABLE} players, got {len(skills)}")
    weights = [1.0 / (_BETA_SQ + sigma * sigma) for _, sigma in skills]
    total = sum(weights)
    mean = sum(u * mu for u, (mu, _) in zip(weights, skills, strict=True)) / total
    spread = sum(u * (mu - mean) ** 2 for u, (mu, _) in zip(weights, skills, strict=True))
    shrink = math.prod(_BETA_SQ * u for u in weights) * len(skills) / (_BETA_SQ * total)
    return math.sqrt(shrink) * math.exp(-0.5 * spread)


def match(pool: Sequence[Ticket], now: float, *, recommended: int, game_min: int, game_max: int) -> list[Table]:
    """One matchmaking pass over one pool; returns the tables formed, in the order they were formed.

    Tickets are served oldest first; each served ticket gets the best valid table among those that include it
    (largest size, then best quality, then longest total wait), and its members leave the pool for the rest of
    the pass, so no ticket is seated twice. Expired tickets are left out (see :func:`expired`). The caller
    stores the tables; doing so exactly once across matchmaker processes is the service's job, not this one's.
    """
    if not game_min <= recommended <= game_max:
        raise ValueError(f"recommended size {recommended} outside the game's {game_min}..{game_max}")
    if len({ticket.id for ticket in pool}) != len(pool):
        raise ValueError("a ticket id appears more than once in the pool")
    live = [ticket for ticket in pool if not is_expired(ticket, now)]
    with gc_paused():
        return _Pass(live, now, recommended, max(game_min, MIN_TABLE), game_max).run()


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a pass builds its lists: a pass allocates no cycles, and with 100,000
    tickets alive each collection walks them all, which took a third of a large pass."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# ----------------------------------------------------------------------------------------------------
# The pass, in small steps
# ----------------------------------------------------------------------------------------------------
#
# Why it is written the way it is: a pass over 100,000 tickets must take a few seconds in CPython, so each
# ticket is read once into plain lists indexed by its place in Elo order, the waiting tickets are a doubly
# linked list in that order (a seated ticket leaves it in O(1), and the nearest waiting tickets are its
# neighbours), and the tables of one size are searched depth first with running sums, skipping every branch that
# cannot beat the best table found so far. The rules and the order of the search are those stated above: the
# same tables come out as from trying every combination, only fewer combinations are tried.

# A branch is skipped only when its bound, inflated by this relative margin, still loses: floating-point
# rounding of the running sums can never make the search skip the table it would otherwise have chosen.
_BOUND_MARGIN = 1e-12
# The same margin for total waits, in seconds.
_WAIT_MARGIN = 1e-9


def _longest_waiting_first(ticket: Ticket) -> tuple[float, str]:
    # The id breaks exact ties so that a pass does not depend on the order the pool was read in.
    return (ticket.queued_at, ticket.id)


def _by_strength(ticket: Ticket) -> tuple[float, str]:
    return (ticket.strength, ticket.id)


class _Pass:
    """One pass's working state: the live tickets as parallel lists in Elo order, and who still waits."""

    def __init__(self, live: Sequence[Ticket], now: float, recommended: int, game_low: int, game_high: int):
        units = sorted(live, key=_by_strength)
        self.units = units
        self.now, self.recommended, self.game_low, self.game_high = now, recommended, game_low, game_high
        self.elo = [u.strength for u in units]
        self.wait = [now - u.queued_at for u in units]
        # tolerance() inlined: the pass computes it once per ticket, not once per comparison.
        self.tol = [min(TOLERANCE_MAX, TOLERANCE_BASE + TOLERANCE_PER_SECOND * max(0.0, w)) for w in self.wait]
        self.least = [u.min_players for u in units]
        self.most = [u.max_players for u in units]
        self.seats = [u.seats for u in units]
        self.players = [frozenset(u.players) if u.party else frozenset((u.player,)) for u in units]
        self.ips = [frozenset((u.ip_hash, *(m.ip_hash for m in u.party))) if u.party else frozenset((u.ip_hash,))
                    for u in units]
        self.blocked = [u.blocked.union(*(m.blocked for m in u.party)) if u.party else u.blocked for u in units]
        self.refuses = [u.refuses_same_ip or any(m.refuses_same_ip for m in u.party) if u.party
                        else u.refuses_same_ip for u in units]
        # Most tickets are one player who blocks nobody and refuses nothing: between two of them only Elo and
        # the handles need comparing.
        self.plain = [not (u.party or u.blocked or u.refuses_same_ip) for u in units]
        self.handle = [u.player for u in units]
        # TrueSkill per seat: weight u = 1 / (beta² + sigma²) and mu, the terms of quality() (see there).
        self.skills = [[(1.0 / (_BETA_SQ + sk[1] * sk[1]), sk[0]) for sk in (u.skill, *(m.skill for m in u.party))]
                       if u.party else [(1.0 / (_BETA_SQ + u.skill[1] * u.skill[1]), u.skill[0])] for u in units]
        self.weight = [sum(w for w, _ in sk) if len(sk) > 1 else sk[0][0] for sk in self.skills]
        self.shrink = [math.prod(_BETA_SQ * w for w, _ in sk) if len(sk) > 1 else _BETA_SQ * sk[0][0]
                       for sk in self.skills]
        self.top_shrink = [max(_BETA_SQ * w for w, _ in sk) if len(sk) > 1 else _BETA_SQ * sk[0][0]
                           for sk in self.skills]
        # The order a table search tries candidates in: largest shrink factor first, then longest wait.
        self.try_key = [(-x, -w) for x, w in zip(self.top_shrink, self.wait, strict=True)]
        count = len(units)
        self.before = list(range(-1, count - 1))
        self.after = list(range(1, count + 1))
        self.waiting = bytearray(b"\x01") * count
        self.serve_order = sorted(range(count), key=lambda i: (units[i].queued_at, units[i].id))

    def run(self) -> list[Table]:
        tables = []
        waiting = self.waiting
        for served in self.serve_order:
            if not waiting[served]:
                continue
            chosen = self.best_table(served)
            if chosen is not None:
                for i in chosen:
                    self.remove(i)
                tables.append(_table([self.units[i] for i in chosen]))
        return tables

    def remove(self, i: int) -> None:
        self.waiting[i] = 0
        below, above = self.before[i], self.after[i]
        if below >= 0:
            self.after[below] = above
        if above < len(self.units):
            self.before[above] = below

    def pair_allowed(self, a: int, b: int) -> bool:
        """The rules between two tickets: mutual acceptance, no block either way, and the same-IP refusal of
        either. The refusal of a third ticket is a rule about the whole table (checked in ``best_table``)."""
        gap = self.elo[a] - self.elo[b]
        if gap < 0:
            gap = -gap
        if gap > self.tol[a] or gap > self.tol[b]:
            return False
        players = self.players
        if not players[a].isdisjoint(players[b]):
            return False
        blocked = self.blocked
        if blocked[a] and not blocked[a].isdisjoint(players[b]):
            return False
        if blocked[b] and not blocked[b].isdisjoint(players[a]):
            return False
        return not ((self.refuses[a] or self.refuses[b]) and not self.ips[a].isdisjoint(self.ips[b]))

    def candidates(self, served: int, low: int, high: int) -> list[int]:
        """Up to CANDIDATES waiting tickets nearest in Elo that could sit with ``served`` at a size it allows,
        scanning at most SCAN_LIMIT outward from its Elo (equal gaps: the one below first)."""
        elo, least, most, seats, after, before = self.elo, self.least, self.most, self.seats, self.after, self.before
        centre, within, end = elo[served], self.tol[served], len(elo)
        room = high - seats[served]
        below, above = before[served], after[served]
        tol, plain, handle = self.tol, self.plain, self.handle
        plain_served, name = plain[served], handle[served]
        found: list[int] = []
        scanned = 0
        while len(found) < CANDIDATES and scanned < SCAN_LIMIT:
            gap_below = centre - elo[below] if below >= 0 else math.inf
            gap_above = elo[above] - centre if above < end else math.inf
            if gap_below <= gap_above:
                if gap_below > within:
                    break
                other, below = below, before[below]
            else:
                if gap_above > within:
                    break
                other, above = above, after[above]
            scanned += 1
            if least[other] <= high and most[other] >= low and seats[other] <= room:
                if plain_served and plain[other]:
                    # Two lone players who block nobody and refuse nothing: mutual acceptance is all (the
                    # served ticket accepts ``other``, being within its tolerance).
                    gap = centre - elo[other]
                    if (gap if gap >= 0 else -gap) <= tol[other] and handle[other] != name:
                        found.append(other)
                elif self.pair_allowed(served, other):
                    found.append(other)
        return found

    def best_table(self, served: int) -> tuple[int, ...] | None:
        """The best valid table including ``served`` (as positions, ``served`` first), or None yet."""
        low = max(self.game_low, self.least[served])
        high = min(self.game_high, self.most[served])
        if low > high:
            return None
        cands = self.candidates(served, low, high)
        if not cands:
            return None
        m = len(cands)
        # Only ``served`` is known to fit with every candidate; the candidates must also fit with each other:
        # bit j of fits[k] says candidate k fits with candidate j.
        if self._all_fit(cands):
            everyone = (1 << m) - 1
            fits = [everyone ^ (1 << k) for k in range(m)]
        else:
            fits = self._fits(cands)
        wait, seats, least, most = self.wait, self.seats, self.least, self.most
        oldest_wait = max(wait[served], *(wait[c] for c in cands))
        # Sums are kept relative to the served ticket's mu, so that the spread of a near-even table is not lost
        # to cancellation between large sums.
        reference = self.skills[served][0][1]
        moments = [self._centred(c, reference) for c in cands]
        own = self._centred(served, reference)
        try_key = self.try_key
        trying = sorted(range(m), key=lambda k: try_key[cands[k]])
        for size in range(min(high, seats[served] + sum(seats[c] for c in cands)), low - 1, -1):
            if size != self.recommended and oldest_wait < ANY_SIZE_AFTER:
                continue  # no table of this size can be valid yet: skip its search
            need = size - seats[served]
            seatable = [k for k in trying if least[cands[k]] <= size <= most[cands[k]] and seats[cands[k]] <= need]
            chosen = self._search(served, cands, seatable, fits, moments, own, size, need)
            if chosen is not None:
                # Larger preferred: a valid table of this size beats every smaller one, whatever their quality.
                return (served, *(cands[k] for k in chosen))
        return None

    def _all_fit(self, cands: list[int]) -> bool:
        """Whether every two candidates fit, known without comparing each pair: lone players who block and refuse
        nothing, all different, and all within the smallest tolerance among them (the usual dense pool)."""
        plain, elo = self.plain, self.elo
        if not all(plain[c] for c in cands):
            return False
        span = max(elo[c] for c in cands) - min(elo[c] for c in cands)
        return span <= min(self.tol[c] for c in cands) and len({self.handle[c] for c in cands}) == len(cands)

    def _fits(self, cands: list[int]) -> list[int]:
        m = len(cands)
        fits = [0] * m
        elo, tol, plain, handle = self.elo, self.tol, self.plain, self.handle
        for i in range(m):
            a = cands[i]
            elo_a, tol_a, plain_a = elo[a], tol[a], plain[a]
            for j in range(i + 1, m):
                b = cands[j]
                gap = elo_a - elo[b]
                if gap < 0:
                    gap = -gap
                if gap > tol_a or gap > tol[b]:
                    continue
                if (handle[a] != handle[b]) if plain_a and plain[b] else self.pair_allowed(a, b):
                    fits[i] |= 1 << j
                    fits[j] |= 1 << i
        return fits

    def _centred(self, i: int, reference: float) -> tuple[float, float]:
        moment = square = 0.0
        for w, mu in self.skills[i]:
            d = mu - reference
            moment += w * d
            square += w * d * d
        return moment, square

    def _search(self, served: int, cands: list[int], seatable: list[int], fits: list[int],
                moments: list[tuple[float, float]], own: tuple[float, float], size: int,
                need: int) -> tuple[int, ...] | None:
        """The best group of ``seatable`` candidates filling ``need`` seats: best quality (to QUALITY_DIGITS),
        then longest total wait, then the first in combinations order (its members nearest in Elo), as if
        every combination had been tried.

        Branch and bound: candidates are tried best shrink factor first (then longest wait), so a good table is
        found early; a branch is followed only if its bound can still beat (or tie) the best table so far. The
        bound: the seats still to fill bring at best the largest shrink factors left (quality rises with each
        factor), adding players never narrows the spread, and each further seat waited at most the longest wait
        left. Ties are settled by the combinations order explicitly, so the order of trying changes nothing.
        """
        if not seatable:
            return None
        seats_, wait_, top_ = self.seats, self.wait, self.top_shrink
        ks = seatable  # already in the order to try
        cs = [cands[k] for k in ks]
        count = len(cs)
        taken = [seats_[c] for c in cs]
        xs = [top_[c] for c in cs]
        waits = [wait_[c] for c in cs]
        seat_waits = [wait_[c] * seats_[c] for c in cs]
        weights = [self.weight[c] for c in cs]
        shrinks = [self.shrink[c] for c in cs]
        firsts = [moments[k][0] for k in ks]
        seconds = [moments[k][1] for k in ks]
        masks = [fits[k] for k in ks]
        bits = [1 << k for k in ks]
        refusing = [self.refuses[c] for c in cs]
        # Suffix bounds over positions pos..: the longest wait and the seats left.
        top_wait = [-math.inf] * (count + 1)
        seats_left = [0] * (count + 1)
        for pos in range(count - 1, -1, -1):
            top_wait[pos] = max(top_wait[pos + 1], waits[pos])
            seats_left[pos] = seats_left[pos + 1] + taken[pos]
        if seats_left[0] < need:
            return None
        recommended = self.recommended
        beta_sq = _BETA_SQ
        sqrt, exp = math.sqrt, math.exp
        state: dict[str, Any] = {"q": -1.0, "w": -math.inf, "combo": None}
        chosen: list[int] = []

        def grow(start: int, left: int, mask: int, weight: float, product: float, moment: float, square: float,
                 total_wait: float, oldest: float, refuses: bool) -> None:
            for pos in range(start, count):
                seats = taken[pos]
                if seats > left or mask & ~masks[pos]:
                    continue
                weight_ = weight + weights[pos]
                product_ = product * shrinks[pos]
                moment_ = moment + firsts[pos]
                square_ = square + seconds[pos]
                wait_sum = total_wait + seat_waits[pos]
                oldest_ = oldest if oldest >= waits[pos] else waits[pos]
                refuses_ = refuses or refusing[pos]
                rest = left - seats
                spread = square_ - moment_ * moment_ / weight_
                chosen.append(pos)
                if rest == 0:
                    if (size == recommended or oldest_ >= ANY_SIZE_AFTER) and \
                            (not refuses_ or self._addresses_apart(served, [cs[p] for p in chosen])):
                        q = round(sqrt(product_ * size / (beta_sq * weight_)) * exp(-0.5 * spread), QUALITY_DIGITS)
                        best_q = state["q"]
                        if q > best_q or (q == best_q and (wait_sum > state["w"] or (
                                wait_sum == state["w"] and sorted(ks[p] for p in chosen) < state["combo"]))):
                            state["q"], state["w"] = q, wait_sum
                            state["combo"] = sorted(ks[p] for p in chosen)
                elif seats_left[pos + 1] >= rest:
                    # The largest shrink factors left are those of the next positions (sorted that way).
                    top, spare, more, nxt = 1.0, 0.0, rest, pos + 1
                    while more > 0 and nxt < count:
                        use = taken[nxt] if taken[nxt] < more else more
                        top *= xs[nxt] ** use
                        spare += use * xs[nxt]
                        more -= use
                        nxt += 1
                    bound = sqrt(product_ * top * size / (beta_sq * weight_ + spare)) \
                        * exp(-0.5 * (spread if spread > 0.0 else 0.0)) * (1 + _BOUND_MARGIN)
                    best_q = state["q"]
                    if bound >= best_q - 2 * 10.0**-QUALITY_DIGITS:
                        bound_q = round(bound, QUALITY_DIGITS)
                        if bound_q > best_q or (bound_q == best_q and
                                                wait_sum + rest * top_wait[pos + 1] + _WAIT_MARGIN >= state["w"]):
                            grow(pos + 1, rest, mask | bits[pos], weight_, product_, moment_, square_, wait_sum,
                                 oldest_, refuses_)
                chosen.pop()

        grow(0, need, 0, self.weight[served], self.shrink[served], own[0], own[1],
             wait_[served] * seats_[served], wait_[served], self.refuses[served])
        combo = state["combo"]
        return None if combo is None else tuple(combo)

    def _addresses_apart(self, served: int, others: list[int]) -> bool:
        """Someone at the table refuses same-IP tables: no two tickets may share an IP hash (within a party
        they may)."""
        seen = set(self.ips[served])
        for other in others:
            mine = self.ips[other]
            if not seen.isdisjoint(mine):
                return False
            seen |= mine
        return True


def _table(members: Sequence[Ticket]) -> Table:
    ordered = tuple(sorted(members, key=_longest_waiting_first))
    if not any(t.party for t in ordered) and len({t.ip_hash for t in ordered}) == len(ordered):
        return Table(ordered)  # nobody shares an address: no warning
    shared = shared_addresses((player, ip) for ticket in ordered
                              for player, ip in ((ticket.player, ticket.ip_hash),
                                                 *((m.player, m.ip_hash) for m in ticket.party)))
    warnings = tuple(TableWarning("same_ip", players) for players in shared)
    return Table(ordered, warnings)
