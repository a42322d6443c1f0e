"""An independent judge of formed tables, written from docs/matchmaking.md (not from the engine), over stored rows.

Used by the property tests and the service-backed worker test: it reads tickets, seats, ratings and
preferences through the ORM and says which rule a table breaks, if any.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations

import trueskill

from arena.games import get_game
from matchmaking.models import Preferences, Table, Ticket, TicketSeat
from ratings.config import elo_config
from ratings.models import Rating


@dataclass(frozen=True)
class Unit:
    """A ticket as the rules see it: its players, their IP hashes, mean Elo, wait and range."""

    id: str
    players: tuple[str, ...]
    ips: tuple[str, ...]
    elo: float
    created_at: datetime
    least: int
    most: int
    refuses: bool
    blocked: frozenset[str]
    skills: tuple[tuple[float, float], ...] = ()

    @property
    def seats(self) -> int:
        return len(self.players)

    def waited(self, now: datetime) -> float:
        return (now - self.created_at).total_seconds()


def units(ticket_ids=None) -> dict[str, Unit]:
    """Every ticket (or those given) as a Unit, from the stored rows."""
    tickets = Ticket.objects.select_related("pool")
    if ticket_ids is not None:
        tickets = tickets.filter(pk__in=list(ticket_ids))
    tickets = list(tickets)
    seats = {}
    for seat in TicketSeat.objects.filter(ticket__in=tickets).select_related("player").order_by("position"):
        seats.setdefault(seat.ticket_id, []).append(seat)
    titles = {t.pool.title for t in tickets}
    rows = list(Rating.objects.filter(title__in=titles))
    elo = {(r.player_id, r.title): r.elo for r in rows}
    skill = {(r.player_id, r.title): (r.ts_mu, r.ts_sigma) for r in rows if r.ts_mu is not None}
    prefs = {p.player_id: p for p in Preferences.objects.all()}
    out = {}
    for t in tickets:
        mine = seats[t.pk]
        ratings = [elo.get((s.player_id, t.pool.title), elo_config().initial) for s in mine]
        refuses = any(prefs[s.player_id].refuse_same_ip for s in mine if s.player_id in prefs)
        blocked = frozenset(h for s in mine if s.player_id in prefs for h in prefs[s.player_id].blocked)
        out[str(t.pk)] = Unit(
            str(t.pk),
            tuple(s.player.handle for s in mine),
            tuple(s.ip_hash for s in mine),
            sum(ratings) / len(ratings),
            t.created_at,
            t.min_players,
            t.max_players,
            refuses,
            blocked,
            tuple(skill.get((s.player_id, t.pool.title), NEWCOMER) for s in mine),
        )
    return out


# trueskill's own defaults, independent of the code under test.
_ENV = trueskill.TrueSkill()
NEWCOMER = (_ENV.mu, _ENV.sigma)


def preference(members: list[Unit], now: datetime) -> tuple[float, float]:
    """What makes one valid table of a size better than another: TrueSkill quality (9 decimals), then the total
    wait of its players."""
    quality = _ENV.quality([(trueskill.Rating(mu, sigma),) for u in members for mu, sigma in u.skills])
    return round(quality, 9), sum(u.waited(now) * u.seats for u in members)


def tolerance(waited: float) -> float:
    return min(800.0, 150.0 + 10.0 * max(0.0, waited))


def sizes(title: str, variant: dict) -> tuple[int, int, int]:
    rules = get_game(title)
    low, high = max(2, rules.min_players), rules.max_players
    if title == "wizard" and variant.get("rounds") == "amigo":
        low, high = max(low, 3), min(high, 5)
    rec = 3 if title == "hanabi" else rules.recommended_players
    return low, high, rec


def violation(members: list[Unit], now: datetime, title: str, variant: dict, slack: float = 1e-3) -> str | None:
    """The first rule of docs/matchmaking.md a table of these tickets breaks at ``now``, or None.

    ``slack`` (seconds) forgives clock rounding at the 30 s, 10 min and tolerance boundaries; a negative slack
    judges strictly instead (to ask "could this table have formed?" without claiming more than the engine saw).
    """
    low, high, rec = sizes(title, variant)
    size = sum(u.seats for u in members)
    if len(members) < 2:
        return "a table needs at least two tickets"
    if not low <= size <= high:
        return f"size {size} outside the game's {low}..{high}"
    players = [p for u in members for p in u.players]
    if len(set(players)) != len(players):
        return "a player twice"
    waits = {u.id: u.waited(now) for u in members}
    for u in members:
        if not u.least <= size <= u.most:
            return f"size {size} outside {u.players[0]}'s {u.least}..{u.most}"
        if waits[u.id] >= 600 + slack:
            return f"{u.players[0]} had expired"
    if size != rec and max(waits.values()) < 30 - slack:
        return f"size {size} is not the recommended {rec} and nobody waited 30 s"
    for a, b in combinations(members, 2):
        gap = abs(a.elo - b.elo)
        margin = 1e-6 if slack > 0 else -1e-6
        if gap > tolerance(waits[a.id] + slack) + margin or gap > tolerance(waits[b.id] + slack) + margin:
            return f"{a.players} and {b.players} are {gap:.1f} apart"
        if a.blocked & set(b.players) or b.blocked & set(a.players):
            return f"a block between {a.players} and {b.players}"
    if any(u.refuses for u in members):
        for a, b in combinations(members, 2):
            if set(a.ips) & set(b.ips):
                return f"{a.players} and {b.players} share an IP and someone refuses that"
    return None


def expected_warnings(members: list[Unit]) -> list[list[str]]:
    ips = Counter(ip for u in members for ip in u.ips)
    return sorted(
        sorted(p for u in members for p, ip in zip(u.players, u.ips, strict=True) if ip == shared)
        for shared, n in ips.items()
        if n > 1
    )


def table_problem(table: Table, by_id: dict[str, Unit]) -> str | None:
    """What is wrong with a stored table: a broken rule, seating that does not match its tickets, warnings."""
    members = [by_id[str(t)] for t in table.tickets.values_list("pk", flat=True)]
    problem = violation(members, table.formed_at, table.title, table.variant)
    if problem:
        return problem
    if sorted(table.players) != sorted(p for u in members for p in u.players):
        return "the table's players are not its tickets' players"
    if sorted(sorted(w["players"]) for w in table.warnings) != expected_warnings(members):
        return "wrong same-IP warnings"
    return None
