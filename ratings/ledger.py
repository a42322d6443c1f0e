"""The rating ledger's rules (docs/ratings.md, "Where rating points come from"): pure, no Django, no I/O.

Every movement of a rating is split into parts, each named by its **source**, so that the parts of one movement
add up to it (the last part is what remains, so the sum is the movement up to one rounding of a double):

- a competitive game: ``duel`` (the pairwise terms, zero-sum within a game when no rule intervenes), then
  ``quit_penalty`` (minus the penalty, on the quitter alone) and ``floor`` (what the floor gave back);
- a Hanabi game: ``hanabot`` (the team against the bot), then ``floor``;
- a moderator's reset: ``reset``;
- a void: ``void_refund`` (the void game's own change, given back to each of its players) and ``rebuild`` (the rest of
  what replaying the title without the game moved, for every player whose rating moved).

Per title and per day, the ledger is the sum of the parts of each source, split into points created (positive
parts) and destroyed (negative parts). Why keep both and not only the net: a source that creates as much as it
destroys (``duel``) is healthy; one that only destroys (``quit_penalty``) is how a pool deflates.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

DUEL = "duel"
HANABOT = "hanabot"
QUIT_PENALTY = "quit_penalty"
FLOOR = "floor"
RESET = "reset"
VOID_REFUND = "void_refund"
REBUILD = "rebuild"
SOURCES = (DUEL, HANABOT, QUIT_PENALTY, FLOOR, RESET, VOID_REFUND, REBUILD)


def game_parts(*, delta: float, unfloored: float, penalty: float, cooperative: bool = False) -> dict[str, float]:
    """One player's change in a rated game, by source; zero parts left out.

    ``delta`` is the stored change; ``unfloored`` what it would have been without the floor (terms minus the
    penalty, the explanation's ``terms_sum - quit_penalty``); ``penalty`` the quit penalty this player paid (0 for
    everyone but a quitter). The floor's part is ``delta - unfloored``; the game's own part is what remains.
    """
    floor = delta - unfloored
    parts = {QUIT_PENALTY: -penalty, FLOOR: floor}
    parts[HANABOT if cooperative else DUEL] = delta - floor + penalty
    return {source: amount for source, amount in parts.items() if amount != 0.0}


def reset_parts(*, delta: float) -> dict[str, float]:
    """A moderator's reset moves the rating to the start: the whole move is ``reset``."""
    return {RESET: delta} if delta != 0.0 else {}


def void_parts(*, refunded: float, moved: float) -> dict[str, float]:
    """One player's correction when a game is voided and the title rebuilt.

    ``refunded`` is minus the void game's stored change for this player (0 if they did not play it); ``moved`` is
    the player's rating after the rebuild minus before it. The rest of the move, ``moved - refunded``, is what the
    replay of the later games changed: ``rebuild``.
    """
    parts = {VOID_REFUND: refunded, REBUILD: moved - refunded}
    return {source: amount for source, amount in parts.items() if amount != 0.0}


@dataclass(frozen=True, slots=True)
class Flow:
    """Points created (sum of positive parts) and destroyed (sum of negative parts, a negative number)."""

    created: float = 0.0
    destroyed: float = 0.0

    @property
    def net(self) -> float:
        return self.created + self.destroyed


def daily(entries: Iterable[tuple[date, Mapping[str, float]]]) -> dict[date, dict[str, Flow]]:
    """Per day, per source, the points created and destroyed by ``(day, parts)`` entries."""
    sums: dict[date, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    for day, parts in entries:
        for source, amount in parts.items():
            if source not in SOURCES:
                raise ValueError(f"unknown ledger source {source!r}")
            sums[day][source][0 if amount > 0 else 1] += amount
    return {day: {source: Flow(c, d) for source, (c, d) in by_source.items()} for day, by_source in sums.items()}


def median(values: Iterable[float]) -> float | None:
    """The middle rating (mean of the two middle ones for an even count); None for no active player."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        return None
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2.0
