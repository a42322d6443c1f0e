"""What the matchmaker is handed and what it returns: tickets (with their parties) and tables.

Plain data, no rules: the rules are in ``rules`` (between two tickets) and the pass (``serving``), so the store and
the tests can build tickets without importing the search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


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
    # docs/matchmaking.md, "Avoiding provisional players": the friend's rating is provisional; the friend asks
    # for no provisional player at the table.
    provisional: bool = False
    avoid_provisional: bool = False


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
    # docs/matchmaking.md, "Avoiding provisional players": the player's rating in this game is provisional
    # (ratings.settled), and the ticket asks to sit with no provisional player (a party asks it if any member does).
    provisional: bool = False
    avoid_provisional: bool = False

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


def any_provisional(ticket: Ticket) -> bool:
    """A provisional player is among the ticket's players."""
    return ticket.provisional or any(m.provisional for m in ticket.party)


def avoids_provisional(ticket: Ticket) -> bool:
    """One of the ticket's players asks for no provisional player at the table (docs/matchmaking.md)."""
    return ticket.avoid_provisional or any(m.avoid_provisional for m in ticket.party)


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
