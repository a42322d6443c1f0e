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
  linear in the pool: about 0.1 s of CPU per 10,000 fresh tickets. Nearest in Elo is where the most even tables
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

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
    # docs/matchmaking.md, "Reputation": the friend's (None: under 10 games) and the minimum the friend asks.
    reputation: float | None = None
    min_reputation: float | None = None


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
    # The player's reputation in percent (None: under 10 games, which meets every minimum) and the least reputation
    # the ticket accepts at its table (None: any); a party's minimum is the strictest of its players'.
    reputation: float | None = None
    min_reputation: float | None = None

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


def lowest_reputation(ticket: Ticket) -> float:
    """The least known reputation among the ticket's players; +inf when none is known yet (meets any minimum)."""
    known = [r for r in (ticket.reputation, *(m.reputation for m in ticket.party)) if r is not None]
    return min(known) if known else math.inf


def strictest_minimum(ticket: Ticket) -> float:
    """The ticket's minimum: the strictest of its players' (docs/matchmaking.md); -inf when nobody asks one."""
    asked = [r for r in (ticket.min_reputation, *(m.min_reputation for m in ticket.party)) if r is not None]
    return max(asked) if asked else -math.inf


def minimum_excludes(ticket: Ticket, pool: Sequence[Ticket], now: float) -> int:
    """How many waiting tickets of ``pool`` the ticket would accept, and be accepted by, on every rule between two
    tickets (Elo both ways, table sizes, blocks, same-IP refusals) but its own minimum reputation: what the GET of a
    waiting ticket reports as kept away by that minimum. Rules about a whole table are not judged here."""
    if strictest_minimum(ticket) == -math.inf:
        return 0
    mine = set(ticket.players)
    my_blocked = ticket.blocked.union(*(m.blocked for m in ticket.party))
    my_ips = {ticket.ip_hash, *(m.ip_hash for m in ticket.party)}
    my_refusal = ticket.refuses_same_ip or any(m.refuses_same_ip for m in ticket.party)
    minimum, my_low = strictest_minimum(ticket), lowest_reputation(ticket)
    count = 0
    for other in pool:
        if other.id == ticket.id or is_expired(other, now):
            continue
        players = set(other.players)
        if players & mine or not (accepts(ticket, other, now) and accepts(other, ticket, now)):
            continue
        if max(ticket.min_players, other.min_players) > min(ticket.max_players, other.max_players):
            continue
        if my_blocked & players or other.blocked.union(*(m.blocked for m in other.party)) & mine:
            continue
        ips = {other.ip_hash, *(m.ip_hash for m in other.party)}
        refusal = my_refusal or other.refuses_same_ip or any(m.refuses_same_ip for m in other.party)
        if refusal and ips & my_ips:
            continue
        if strictest_minimum(other) > my_low:
            continue  # the other ticket's own minimum, not this one's
        if lowest_reputation(other) < minimum:
            count += 1
    return count


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
        tickets = self.tickets
        for ticket in tickets:
            if ticket.party:
                return tuple(player for ticket in tickets for player in ticket.players)
        return tuple([ticket.player for ticket in tickets])


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
    # The caller pauses the collector around the whole pass (arena/gc_pause.py: load, this, writes), once.
    return _Pass(live, now, recommended, max(game_min, MIN_TABLE), game_max).run()


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


# Qualities this far below the best so far cannot round up to it.
_ROUNDING = 2 * 10.0**-QUALITY_DIGITS
# Per-candidate constants of the usual search (every candidate one seat, every two fit, nobody refusing).
_ONES = (1,) * (CANDIDATES + 1)
_ANYONE = (-1,) * (CANDIDATES + 1)  # a mask of everyone: ``mask & ~_ANYONE[pos]`` is always 0
_NOBODY = (0,) * (CANDIDATES + 1)


def _ordered(keys: list[float], ids: list[str]) -> list[int]:
    """Positions sorted by ``keys``, exact ties by id (so that a pass does not depend on the order the pool was
    read in). Sorting bare floats is several times cheaper than sorting (float, id) pairs; with ties, a stable
    sort by key over positions already in id order settles them the same way."""
    order = sorted(range(len(keys)), key=keys.__getitem__)
    if len(set(keys)) < len(keys):
        order = sorted(range(len(keys)), key=ids.__getitem__)
        order.sort(key=keys.__getitem__)
    return order


class _Pass:
    """One pass's working state: the live tickets as parallel lists in Elo order, and who still waits.

    Most tickets are one player who blocks nobody and refuses nothing ("plain"): for them nothing is built but
    numbers and their handle; the sets a rule between parties, blocks or refusals needs are made only for the
    tickets that have them (``_handles``, ``_addresses``).
    """

    def __init__(self, live: Sequence[Ticket], now: float, recommended: int, game_low: int, game_high: int):
        strength = [u.strength for u in live]
        by_elo = _ordered(strength, [u.id for u in live])
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
        self.refuses = [u.refuses_same_ip or any(m.refuses_same_ip for m in u.party) if u.party
                        else u.refuses_same_ip for u in units]
        # Between two plain tickets only Elo, the handles and reputations need comparing.
        self.plain = [not (u.party or u.blocked or u.refuses_same_ip) for u in units]
        # Reputation (docs/matchmaking.md): each ticket's least known reputation (+inf: none known, meets every
        # minimum) and its strictest minimum (-inf: none). Two tickets fit when neither minimum exceeds the other's
        # least reputation; with nobody asking a minimum the checks are skipped (``reputation_rule`` False).
        inf = math.inf
        self.rep_low = [(inf if u.reputation is None else u.reputation) if not u.party else lowest_reputation(u)
                        for u in units]
        self.rep_min = [(-inf if u.min_reputation is None else u.min_reputation) if not u.party
                        else strictest_minimum(u) for u in units]
        self.reputation_rule = any(m > -inf for m in self.rep_min)
        with_party = [i for i, p in enumerate(parties) if p]
        self.party_players = {i: frozenset(units[i].players) for i in with_party}
        self.party_ips = {i: frozenset((units[i].ip_hash, *(m.ip_hash for m in units[i].party))) for i in with_party}
        # TrueSkill per seat: weight u = 1 / (beta² + sigma²) and mu, the terms of quality() (see there). A lone
        # player's are two numbers; a party's, one (u, mu) per seat (party_skills).
        beta_sq = _BETA_SQ
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
        # The order a table search tries candidates in: largest shrink factor first, then longest wait.
        self.try_key = [(-x, -w) for x, w in zip(self.top_shrink, self.wait, strict=True)]
        count = len(units)
        self.before = list(range(-1, count - 1))
        self.after = list(range(1, count + 1))
        self.waiting = bytearray(b"\x01") * count
        self.serve_order = _ordered([u.queued_at for u in units], [u.id for u in units])
        # A table's tickets are listed in serving order (longest waiting first).
        self.serve_rank = [0] * count
        for rank, i in enumerate(self.serve_order):
            self.serve_rank[i] = rank

    def run(self) -> list[Table]:
        tables = []
        waiting, units, rank = self.waiting, self.units, self.serve_rank
        best_table, remove = self.best_table, self.remove
        for served in self.serve_order:
            if not waiting[served]:
                continue
            chosen = best_table(served)
            if chosen is not None:
                for i in chosen:
                    remove(i)
                tables.append(_table([units[i] for i in sorted(chosen, key=rank.__getitem__)]))
        return tables

    def remove(self, i: int) -> None:
        self.waiting[i] = 0
        below, above = self.before[i], self.after[i]
        if below >= 0:
            self.after[below] = above
        if above < len(self.units):
            self.before[above] = below

    def _handles(self, i: int) -> frozenset[str]:
        found = self.party_players.get(i)
        return frozenset((self.handle[i],)) if found is None else found

    def _addresses(self, i: int) -> frozenset[str]:
        found = self.party_ips.get(i)
        return frozenset((self.ip[i],)) if found is None else found

    def pair_allowed(self, a: int, b: int) -> bool:
        """The rules between two tickets: mutual acceptance, no block either way, and the same-IP refusal of
        either. The refusal of a third ticket is a rule about the whole table (checked in ``best_table``)."""
        gap = self.elo[a] - self.elo[b]
        if gap < 0:
            gap = -gap
        if gap > self.tol[a] or gap > self.tol[b]:
            return False
        if self.reputation_rule and (self.rep_min[a] > self.rep_low[b] or self.rep_min[b] > self.rep_low[a]):
            return False
        players_a, players_b = self._handles(a), self._handles(b)
        if not players_a.isdisjoint(players_b):
            return False
        blocked = self.blocked
        if blocked[a] and not blocked[a].isdisjoint(players_b):
            return False
        if blocked[b] and not blocked[b].isdisjoint(players_a):
            return False
        return not ((self.refuses[a] or self.refuses[b]) and not self._addresses(a).isdisjoint(self._addresses(b)))

    def candidates(self, served: int, low: int, high: int) -> list[int]:
        """Up to CANDIDATES waiting tickets nearest in Elo that could sit with ``served`` at a size it allows,
        scanning at most SCAN_LIMIT outward from its Elo (equal gaps: the one below first)."""
        elo, least, most, seats, after, before = self.elo, self.least, self.most, self.seats, self.after, self.before
        centre, within, end = elo[served], self.tol[served], len(elo)
        room = high - seats[served]
        below, above = before[served], after[served]
        tol, plain, handle = self.tol, self.plain, self.handle
        plain_served, name = plain[served], handle[served]
        rule = self.reputation_rule
        rep_low, rep_min = self.rep_low, self.rep_min
        low_served, min_served = rep_low[served], rep_min[served]
        inf = math.inf
        found: list[int] = []
        add = found.append
        left = CANDIDATES
        scanned = 0
        gap_below = centre - elo[below] if below >= 0 else inf
        gap_above = elo[above] - centre if above < end else inf
        while left and scanned < SCAN_LIMIT:
            if gap_below <= gap_above:
                if gap_below > within:
                    break
                other, below = below, before[below]
                gap_below = centre - elo[below] if below >= 0 else inf
            else:
                if gap_above > within:
                    break
                other, above = above, after[above]
                gap_above = elo[above] - centre if above < end else inf
            scanned += 1
            if rule and (min_served > rep_low[other] or rep_min[other] > low_served):
                continue  # a minimum reputation keeps the two apart (counted as scanned: the bound holds)
            if least[other] <= high and most[other] >= low and seats[other] <= room:
                if plain_served and plain[other]:
                    # Two lone players who block nobody and refuse nothing: mutual acceptance is all (the
                    # served ticket accepts ``other``, being within its tolerance).
                    gap = centre - elo[other]
                    if (gap if gap >= 0 else -gap) <= tol[other] and handle[other] != name:
                        add(other)
                        left -= 1
                elif self.pair_allowed(served, other):
                    add(other)
                    left -= 1
        return found

    def best_table(self, served: int) -> tuple[int, ...] | None:
        """The best valid table including ``served`` (as positions, ``served`` first), or None yet."""
        least, most, seats = self.least, self.most, self.seats
        low = max(self.game_low, least[served])
        high = min(self.game_high, most[served])
        if low > high:
            return None
        cands = self.candidates(served, low, high)
        if not cands:
            return None
        # Only ``served`` is known to fit with every candidate; the candidates must also fit with each other:
        # bit j of fits[k] says candidate k fits with candidate j (None: every two fit).
        fits = None if self._all_fit(cands) else self._fits(cands)
        wait = self.wait
        oldest_wait = wait[served]
        room = 0
        for c in cands:
            if wait[c] > oldest_wait:
                oldest_wait = wait[c]
            room += seats[c]
        try_key = self.try_key
        keys = [try_key[c] for c in cands]
        trying = sorted(range(len(cands)), key=keys.__getitem__)
        recommended = self.recommended
        for size in range(min(high, seats[served] + room), low - 1, -1):
            if size != recommended and oldest_wait < ANY_SIZE_AFTER:
                continue  # no table of this size can be valid yet: skip its search
            need = size - seats[served]
            seatable = [k for k in trying if least[cands[k]] <= size <= most[cands[k]] and seats[cands[k]] <= need]
            chosen = self._search(served, cands, seatable, fits, size, need) if seatable else None
            if chosen is not None:
                # Larger preferred: a valid table of this size beats every smaller one, whatever their quality.
                return (served, *(cands[k] for k in chosen))
        return None

    def _all_fit(self, cands: list[int]) -> bool:
        """Whether every two candidates fit, known without comparing each pair: lone players who block and refuse
        nothing, all different, and all within the smallest tolerance among them (the usual dense pool)."""
        plain, elo, tol = self.plain, self.elo, self.tol
        first = cands[0]
        lowest = highest = elo[first]
        narrowest = tol[first]
        for c in cands:
            if not plain[c]:
                return False
            e = elo[c]
            if e < lowest:
                lowest = e
            elif e > highest:
                highest = e
            if tol[c] < narrowest:
                narrowest = tol[c]
        if highest - lowest > narrowest:
            return False
        if self.reputation_rule:
            rep_low, rep_min = self.rep_low, self.rep_min
            if max(rep_min[c] for c in cands) > min(rep_low[c] for c in cands):
                return False
        handle = self.handle
        return len({handle[c] for c in cands}) == len(cands)

    def _fits(self, cands: list[int]) -> list[int]:
        m = len(cands)
        fits = [0] * m
        elo, tol, plain, handle = self.elo, self.tol, self.plain, self.handle
        rule, rep_low, rep_min = self.reputation_rule, self.rep_low, self.rep_min
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
                if rule and (rep_min[a] > rep_low[b] or rep_min[b] > rep_low[a]):
                    continue
                if (handle[a] != handle[b]) if plain_a and plain[b] else self.pair_allowed(a, b):
                    fits[i] |= 1 << j
                    fits[j] |= 1 << i
        return fits

    def _centred(self, i: int, reference: float) -> tuple[float, float]:
        skills = self.party_skills.get(i)
        if skills is None:
            skills = [(self.weight[i], self.mu[i])]
        moment = square = 0.0
        for w, mu in skills:
            d = mu - reference
            moment += w * d
            square += w * d * d
        return moment, square

    def _search(self, served: int, cands: list[int], seatable: list[int], fits: list[int] | None, size: int,
                need: int) -> tuple[int, ...] | None:
        """The best group of ``seatable`` candidates filling ``need`` seats: best quality (to QUALITY_DIGITS),
        then longest total wait, then the first in combinations order (its members nearest in Elo), as if
        every combination had been tried.

        Branch and bound: candidates are tried best shrink factor first (then longest wait), so a good table is
        found early; a branch is followed only if its bound can still beat (or tie) the best table so far. The
        bound: the seats still to fill bring at best the largest shrink factors left (quality rises with each
        factor), adding players never narrows the spread, and each further seat waited at most the longest wait
        left. Ties are settled by the combinations order explicitly, so the order of trying changes nothing.
        When every candidate is one seat, the bound of "the seats still to fill, all taken from here on" only
        falls along the order of trying: once it loses, no later candidate at that depth can win, and the loop
        stops there.

        Sums are kept relative to the served ticket's mu, so that the spread of a near-even table is not lost to
        cancellation between large sums.
        """
        ks = seatable  # already in the order to try
        cs = [cands[k] for k in ks]
        count = len(cs)
        wait_of, weight_of = self.wait, self.weight
        waits = [wait_of[c] for c in cs]
        xs = [self.top_shrink[c] for c in cs]
        weights = [weight_of[c] for c in cs]
        reference = self.mu[served]
        if self.party_skills:
            seats_of = self.seats
            taken = [seats_of[c] for c in cs]
            single = sum(taken) == count
        else:
            seats_of, taken, single = _ONES, _ONES, True
        if single:
            # One seat each: the shrink factor is the seat's, the seat-weighted wait the wait, and the sums of
            # quality() one term each.
            shrinks, seat_waits, seats_left = xs, waits, range(count, -1, -1)
            mus = self.mu
            gaps = [mus[c] - reference for c in cs]
            firsts = [0.0 + w * d for w, d in zip(weights, gaps, strict=True)]
            seconds = [0.0 + w * d * d for w, d in zip(weights, gaps, strict=True)]
        else:
            shrinks = [self.shrink[c] for c in cs]
            seat_waits = [wait_of[c] * seats_of[c] for c in cs]
            seats_left = [0] * (count + 1)
            for pos in range(count - 1, -1, -1):
                seats_left[pos] = seats_left[pos + 1] + taken[pos]
            if seats_left[0] < need:
                return None
            moments = [self._centred(c, reference) for c in cs]
            firsts = [f for f, _ in moments]
            seconds = [s for _, s in moments]
        if fits is None:
            # Every two fit and nobody refuses anything: no mask can exclude anyone.
            masks, bits, refusing = _ANYONE, _NOBODY, _NOBODY
        else:
            masks = [fits[k] for k in ks]
            bits = [1 << k for k in ks]
            refusing = [self.refuses[c] for c in cs]
        recommended = self.recommended
        beta_sq = _BETA_SQ
        sqrt, exp = math.sqrt, math.exp
        inflate = 1 + _BOUND_MARGIN
        if single:
            if count < need:
                return None
            # heads[n][pos] and sums[n][pos]: the product and the sum of the n factors from position pos on, the
            # largest n left there, multiplied and added in the order the general bound below would.
            # One factor is the factor itself (1.0 · x and 0.0 + x are x exactly).
            heads: list[list[float]] = [[], xs]
            sums: list[list[float]] = [[], xs]
            for n in range(2, need + 1):
                shorter_head, shorter_sum = heads[n - 1], sums[n - 1]
                heads.append([shorter_head[p] * xs[p + n - 1] for p in range(count - n + 1)])
                sums.append([shorter_sum[p] + xs[p + n - 1] for p in range(count - n + 1)])
        best_q, best_w = -1.0, -math.inf
        best: list[int] | None = None
        chosen: list[int] = []

        def grow(start: int, left: int, mask: int, weight: float, product: float, moment: float, square: float,
                 total_wait: float, oldest: float, refuses: bool, spread_so_far: float) -> None:
            nonlocal best_q, best_w, best
            if single:
                room = beta_sq * weight
                damp = (exp(-0.5 * spread_so_far) if spread_so_far > 0.0 else 1.0) * inflate
                head, tail = heads[left], sums[left]
            for pos in range(start, count):
                if seats_left[pos] < left:
                    break  # too few seats left from here on
                if single and sqrt(product * head[pos] * size / (room + tail[pos])) * damp < best_q - _ROUNDING:
                    break  # the factors only fall from here on: no later table can beat (or tie) the best
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
                        if q > best_q or (q == best_q and (wait_sum > best_w or (
                                wait_sum == best_w and sorted(ks[p] for p in chosen) < sorted(ks[p] for p in best)))):
                            best_q, best_w, best = q, wait_sum, chosen[:]
                elif seats_left[pos + 1] >= rest:
                    # The largest shrink factors left are those of the next positions (sorted that way).
                    if single:
                        top, spare = heads[rest][pos + 1], sums[rest][pos + 1]
                    else:
                        top, spare, more, nxt = 1.0, 0.0, rest, pos + 1
                        while more > 0 and nxt < count:
                            use = taken[nxt] if taken[nxt] < more else more
                            top *= xs[nxt] ** use
                            spare += use * xs[nxt]
                            more -= use
                            nxt += 1
                    bound = sqrt(product_ * top * size / (beta_sq * weight_ + spare)) \
                        * exp(-0.5 * (spread if spread > 0.0 else 0.0)) * inflate
                    if bound >= best_q - _ROUNDING:
                        bound_q = round(bound, QUALITY_DIGITS)
                        if bound_q > best_q or (bound_q == best_q and
                                                wait_sum + rest * max(waits[pos + 1:]) + _WAIT_MARGIN >= best_w):
                            grow(pos + 1, rest, mask | bits[pos], weight_, product_, moment_, square_, wait_sum,
                                 oldest_, refuses_, spread)
                chosen.pop()

        own_weight = self.weight[served]
        own_moment, own_square = self._centred(served, reference) if served in self.party_skills else (0.0, 0.0)
        own_wait = wait_of[served]
        try:
            grow(0, need, 0, own_weight, self.shrink[served], own_moment, own_square, own_wait * self.seats[served],
                 own_wait, self.refuses[served], own_square - own_moment * own_moment / own_weight)
        finally:
            # grow refers to itself (it recurses): a reference cycle that would keep this search, and through
            # ``self`` the whole pass, alive until the garbage collector found it.
            grow = None
        return None if best is None else tuple(sorted(ks[p] for p in best))

    def _addresses_apart(self, served: int, others: list[int]) -> bool:
        """Someone at the table refuses same-IP tables: no two tickets may share an IP hash (within a party
        they may)."""
        seen = set(self._addresses(served))
        for other in others:
            mine = self._addresses(other)
            if not seen.isdisjoint(mine):
                return False
            seen |= mine
        return True


def _table(ordered: Sequence[Ticket]) -> Table:
    """A table of ``ordered`` (longest waiting first), with a warning per IP hash its players share."""
    if not any(t.party for t in ordered) and len({t.ip_hash for t in ordered}) == len(ordered):
        return Table(tuple(ordered))  # nobody shares an address: no warning
    shared = shared_addresses((player, ip) for ticket in ordered
                              for player, ip in ((ticket.player, ticket.ip_hash),
                                                 *((m.player, m.ip_hash) for m in ticket.party)))
    warnings = tuple(TableWarning("same_ip", players) for players in shared)
    return Table(tuple(ordered), warnings)
