"""A brute-force reading of docs/matchmaking.md: every valid table of a small pool, and the best of them.

Written from the document alone, not from the engine (it calls none of ``matchmaking.engine``'s functions, only
reads the fields of its public ``Ticket`` and ``Member``): the engine's branch and bound must choose, for each
served ticket, a table this exhaustive search ranks first. Slow on purpose (every combination, the ``trueskill``
package's own quality), so only for pools of a few tickets, where the engine's bounded candidate list (the
compatible tickets nearest in Elo, docs/matchmaking.md) holds every other ticket.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import trueskill

from matchmaking.engine import Ticket
from ratings.skill import ENV

# The figures of docs/matchmaking.md, copied from the document (not imported from the engine).
BASE, PER_SECOND, WIDEST = 150.0, 10.0, 800.0
ANY_SIZE_AFTER = 30.0
EXPIRES_AFTER = 600.0


@dataclass(frozen=True)
class Game:
    recommended: int
    low: int
    high: int


def tolerance(waited: float) -> float:
    """ "Within 150 + 10 x w of its own, at most 800" (a wait below zero counts as none)."""
    return min(WIDEST, BASE + PER_SECOND * max(0.0, waited))


def seats(t: Ticket) -> list:
    """The ticket's player then its friends: each has a player, ip_hash, elo, skill, blocked, refuses_same_ip."""
    return [t, *t.party]


def strength(t: Ticket) -> float:
    """A party's strength is its members' mean Elo."""
    people = seats(t)
    return sum(p.elo for p in people) / len(people)


def reputation(t: Ticket) -> float | None:
    """A party's reputation is its lowest member's; a player under 10 games (None) has none yet."""
    known = [p.reputation for p in seats(t) if p.reputation is not None]
    return min(known) if known else None


def minimum(t: Ticket) -> float | None:
    """A party's minimum is the strictest of its players'."""
    asked = [p.min_reputation for p in seats(t) if p.min_reputation is not None]
    return max(asked) if asked else None


def meets(t: Ticket, other: Ticket) -> bool:
    """``t``'s minimum allows sitting with ``other`` (no reputation yet meets every minimum)."""
    floor, rep = minimum(t), reputation(other)
    return floor is None or rep is None or rep >= floor


def pair_allowed(a: Ticket, b: Ticket, now: float) -> bool:
    """The rules between two tickets of one table: each accepts the other's Elo (on its own wait), nobody is
    seated twice, no block either way, and each one's minimum reputation holds."""
    gap = abs(strength(a) - strength(b))
    if gap > tolerance(now - a.queued_at) or gap > tolerance(now - b.queued_at):
        return False
    players_a, players_b = {p.player for p in seats(a)}, {p.player for p in seats(b)}
    if players_a & players_b:
        return False
    for p in seats(a):
        if p.blocked & players_b:
            return False
    for p in seats(b):
        if p.blocked & players_a:
            return False
    return meets(a, b) and meets(b, a)


def addresses_apart(tickets: Sequence[Ticket]) -> bool:
    """No two tickets share an address hash (friends inside one ticket may)."""
    seen: set[str] = set()
    for t in tickets:
        mine = {p.ip_hash for p in seats(t)}
        if seen & mine:
            return False
        seen |= mine
    return True


def table_size(tickets: Sequence[Ticket]) -> int:
    return sum(len(seats(t)) for t in tickets)


def table_allowed(tickets: Sequence[Ticket], now: float, game: Game) -> bool:
    """The rules about a whole table; pairs are checked by the caller."""
    size = table_size(tickets)
    if len(tickets) < 2 or size < 2 or not game.low <= size <= game.high:
        return False
    if any(not t.min_players <= size <= t.max_players for t in tickets):
        return False
    if size != game.recommended and max(now - t.queued_at for t in tickets) < ANY_SIZE_AFTER:
        return False
    if any(p.refuses_same_ip for t in tickets for p in seats(t)):
        return addresses_apart(tickets)
    return True


@lru_cache(maxsize=100_000)
def _quality(skills: tuple[tuple[float, float], ...]) -> float:
    return ENV.quality([(trueskill.Rating(mu=mu, sigma=sigma),) for mu, sigma in skills])


def quality(tickets: Sequence[Ticket]) -> float:
    """The ``trueskill`` package's match quality, every player a side of one (in a canonical order, so that two
    tables of the same ratings are exactly equally even)."""
    return _quality(tuple(sorted(tuple(p.skill) for t in tickets for p in seats(t))))


def total_wait(tickets: Sequence[Ticket], now: float) -> float:
    """Each player counts: a party of three that waited 10 s has waited 30 s."""
    return sum((now - t.queued_at) * len(seats(t)) for t in tickets)


def valid_tables(served: Ticket, waiting: Sequence[Ticket], now: float, game: Game) -> list[tuple[Ticket, ...]]:
    """Every valid table of ``waiting`` that seats ``served`` (``served`` first)."""
    others = [t for t in waiting if t is not served and pair_allowed(served, t, now)]
    found: list[tuple[Ticket, ...]] = []

    def grow(start: int, chosen: list[Ticket]) -> None:
        if len(chosen) > 1 and table_allowed(chosen, now, game):
            found.append(tuple(chosen))
        if table_size(chosen) >= game.high:
            return
        for i in range(start, len(others)):
            if all(pair_allowed(c, others[i], now) for c in chosen[1:]):
                chosen.append(others[i])
                grow(i + 1, chosen)
                chosen.pop()

    grow(0, [served])
    return found


def rank(tickets: Sequence[Ticket], now: float) -> tuple[int, float, float]:
    """The order of preference: the larger table, then the more even, then the longer total wait."""
    return table_size(tickets), quality(tickets), total_wait(tickets, now)


def serve_order(pool: Sequence[Ticket], now: float) -> list[Ticket]:
    """The live tickets, longest-waiting first (expired ones, 10 minutes or more, are never matched)."""
    live = [t for t in pool if now - t.queued_at < EXPIRES_AFTER]
    return sorted(live, key=lambda t: t.queued_at)


def held_back_by_minimum(t: Ticket, pool: Sequence[Ticket], now: float) -> int:
    """``waiting.min_reputation.excludes``: the waiting tickets that would fit with ``t`` on every rule between two
    tickets (Elo both ways, a table size both take, blocks, same-IP refusals, the other's own minimum) but ``t``'s
    minimum; 0 when ``t`` asks none."""
    if minimum(t) is None:
        return 0
    count = 0
    for other in pool:
        if other is t or now - other.queued_at >= EXPIRES_AFTER:
            continue
        if max(t.min_players, other.min_players) > min(t.max_players, other.max_players):
            continue
        refusing = any(p.refuses_same_ip for p in (*seats(t), *seats(other)))
        if refusing and not addresses_apart([t, other]):
            continue
        gap = abs(strength(t) - strength(other))
        if gap > tolerance(now - t.queued_at) or gap > tolerance(now - other.queued_at):
            continue
        players_t, players_o = {p.player for p in seats(t)}, {p.player for p in seats(other)}
        if (
            players_t & players_o
            or any(p.blocked & players_o for p in seats(t))
            or any(p.blocked & players_t for p in seats(other))
        ):
            continue
        if meets(other, t) and not meets(t, other):
            count += 1
    return count
