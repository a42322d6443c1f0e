"""The matchmaking rules of ``matchmaking.md`` as one pure function: a pool of tickets and a clock -> tables.

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
  combinations of ``size - 1`` of them. With 8 candidates that is at most C(8, 4) = 70 tables per size tried,
  whatever the pool size, so a pass over 3,000 tickets takes well under a second (about 0.15 s, 0.3 s when every
  table could seat six). Nearest in Elo is where the most even tables almost always are; what the bound can
  miss is a table made only of players further away, and the served ticket is tried again on the next pass.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

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


@dataclass(frozen=True, slots=True)
class Ticket:
    """A player's request to play, as the matchmaker sees it in one pool (game, variant, rated)."""

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
        return tuple(ticket.player for ticket in self.tickets)


def tolerance(waited: float) -> float:
    """Elo gap a ticket accepts after ``waited`` seconds: ``150 + 10·w``, at most 800.

    A negative wait (a ticket stamped by a clock slightly ahead of the caller's) counts as no wait.
    """
    return min(TOLERANCE_MAX, TOLERANCE_BASE + TOLERANCE_PER_SECOND * max(0.0, waited))


def accepts(a: Ticket, b: Ticket, now: float) -> bool:
    """Whether ``a`` accepts ``b`` on Elo alone. One direction only: a table needs it both ways."""
    return abs(a.elo - b.elo) <= tolerance(now - a.queued_at)


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
    waiting = _EloIndex(live)
    tables = []
    for ticket in sorted(live, key=_longest_waiting_first):
        if ticket.id not in waiting:
            continue
        table = _best_table(ticket, waiting, now, recommended, max(game_min, MIN_TABLE), game_max)
        if table is not None:
            waiting.remove(table.tickets)
            tables.append(table)
    return tables


# ----------------------------------------------------------------------------------------------------
# The pass, in small steps
# ----------------------------------------------------------------------------------------------------

def _longest_waiting_first(ticket: Ticket) -> tuple[float, str]:
    # The id breaks exact ties so that a pass does not depend on the order the pool was read in.
    return (ticket.queued_at, ticket.id)


def _best_table(served: Ticket, waiting: _EloIndex, now: float, recommended: int, game_low: int,
                game_high: int) -> Table | None:
    """The best valid table including ``served``, or None when no valid table includes it yet."""
    low = max(game_low, served.min_players)
    high = min(game_high, served.max_players)
    if low > high:
        return None
    candidates = _candidates(served, waiting, now, low, high)
    # Only ``served`` is known to fit with every candidate; the candidates must also fit with each other.
    fits = [[False] * len(candidates) for _ in candidates]
    for i, j in combinations(range(len(candidates)), 2):
        fits[i][j] = fits[j][i] = _pair_allowed(candidates[i], candidates[j], now)
    oldest_wait = max(now - ticket.queued_at for ticket in (served, *candidates))
    for size in range(min(high, len(candidates) + 1), low - 1, -1):
        if size != recommended and oldest_wait < ANY_SIZE_AFTER:
            continue  # no table of this size can be valid yet: skip its enumeration
        seatable = [i for i, other in enumerate(candidates) if other.min_players <= size <= other.max_players]
        best: tuple[Ticket, ...] | None = None
        best_key = (-1.0, -math.inf)
        for chosen in _groups(size - 1, seatable, fits):
            members = (served, *(candidates[i] for i in chosen))
            if not _table_allowed(members, now, recommended):
                continue
            key = (round(quality([m.skill for m in members]), QUALITY_DIGITS),
                   sum(now - m.queued_at for m in members))
            # Strictly better only: among equals the first found stays, its members being nearest in Elo.
            if key > best_key:
                best, best_key = members, key
        if best is not None:
            # Larger preferred: a valid table of this size beats every smaller one, whatever their quality.
            return _table(best)
    return None


def _candidates(served: Ticket, waiting: _EloIndex, now: float, low: int, high: int) -> list[Ticket]:
    """Up to CANDIDATES waiting tickets nearest in Elo that could sit with ``served`` at a size it allows."""
    found = []
    for scanned, other in enumerate(waiting.nearest(served, tolerance(now - served.queued_at))):
        if len(found) == CANDIDATES or scanned == SCAN_LIMIT:
            break
        if other.min_players <= high and other.max_players >= low and _pair_allowed(served, other, now):
            found.append(other)
    return found


def _groups(count: int, seatable: Sequence[int], fits: Sequence[Sequence[bool]],
            chosen: tuple[int, ...] = ()) -> Iterator[tuple[int, ...]]:
    """Every ``count`` of the ``seatable`` candidates that all fit with each other, in combinations order.

    Built one member at a time, so a pair that does not fit cuts off every group containing it at once.
    """
    if len(chosen) == count:
        yield chosen
        return
    for k, i in enumerate(seatable):
        if all(fits[i][j] for j in chosen):
            yield from _groups(count, seatable[k + 1:], fits, (*chosen, i))


def _pair_allowed(a: Ticket, b: Ticket, now: float) -> bool:
    """The rules between two members: mutual acceptance, no block either way, and the same-IP refusal of either.

    The refusal of a third member is a rule about the whole table and is checked in :func:`_table_allowed`.
    """
    return (
        a.player != b.player
        and accepts(a, b, now)
        and accepts(b, a, now)
        and b.player not in a.blocked
        and a.player not in b.blocked
        and not ((a.refuses_same_ip or b.refuses_same_ip) and a.ip_hash == b.ip_hash)
    )


def _table_allowed(members: Sequence[Ticket], now: float, recommended: int) -> bool:
    """The rules of a whole table whose pairs and sizes were already checked: the 30 s rule, anyone's IP refusal."""
    size = len(members)
    if size != recommended and max(now - m.queued_at for m in members) < ANY_SIZE_AFTER:
        return False
    someone_refuses = any(m.refuses_same_ip for m in members)
    return not (someone_refuses and len({m.ip_hash for m in members}) < size)


def _table(members: Sequence[Ticket]) -> Table:
    ordered = tuple(sorted(members, key=_longest_waiting_first))
    shared = shared_addresses((ticket.player, ticket.ip_hash) for ticket in ordered)
    warnings = tuple(TableWarning("same_ip", players) for players in shared)
    return Table(ordered, warnings)


class _EloIndex:
    """The tickets still waiting in this pass, sorted by Elo, so the nearest ones are found without a full scan."""

    def __init__(self, tickets: Sequence[Ticket]):
        ordered = sorted(tickets, key=self._key)
        self._keys = [self._key(ticket) for ticket in ordered]
        self._tickets = ordered
        self._ids = {ticket.id for ticket in ordered}

    @staticmethod
    def _key(ticket: Ticket) -> tuple[float, str]:
        return (ticket.elo, ticket.id)

    def __contains__(self, ticket_id: str) -> bool:
        return ticket_id in self._ids

    def remove(self, tickets: Sequence[Ticket]) -> None:
        for ticket in tickets:
            index = bisect_left(self._keys, self._key(ticket))
            del self._keys[index]
            del self._tickets[index]
            self._ids.discard(ticket.id)

    def nearest(self, ticket: Ticket, within: float) -> Iterator[Ticket]:
        """The other waiting tickets at most ``within`` Elo from ``ticket``, nearest first."""
        centre = bisect_left(self._keys, self._key(ticket))
        below, above = centre - 1, centre + 1
        tickets = self._tickets
        while True:
            gap_below = ticket.elo - tickets[below].elo if below >= 0 else math.inf
            gap_above = tickets[above].elo - ticket.elo if above < len(tickets) else math.inf
            if min(gap_below, gap_above) > within:
                return
            # Equal gaps: the ticket below first, a fixed rule that keeps a pass reproducible.
            if gap_below <= gap_above:
                yield tickets[below]
                below -= 1
            else:
                yield tickets[above]
                above += 1
