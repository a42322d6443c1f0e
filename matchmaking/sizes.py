"""Which table sizes a pool can form: the game's player counts for its variant, narrowed by the matchmaker.

Pure (no Django): the rules modules say how many players a game and its variant take and at which size matchmaking
forms a table (docs/games.md, ``GameRules.player_range`` and ``table_recommended``); docs/matchmaking.md adds that a
table needs two players. No game is named here: a new game's rules answer for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from matchmaking.engine import MIN_TABLE


class Rules(Protocol):
    """What this module reads of a game's rules (``arena.games.get_game``): read only, so that the class attributes
    of a game's rules class (``ClassVar``) meet it."""

    @property
    def name(self) -> str: ...
    @property
    def variants(self) -> Mapping[str, tuple[Any, ...]]: ...
    @property
    def recommended_players(self) -> int | None: ...  # None for a cooperative game: ``table_recommended`` says
    @property
    def table_recommended(self) -> int | None: ...

    def player_range(self, variant: Mapping[str, Any]) -> tuple[int, int]: ...


@dataclass(frozen=True, slots=True)
class Sizes:
    """The table sizes of one pool: ``low..high`` inclusive, formed at ``recommended`` while everyone is fresh."""

    low: int
    high: int
    recommended: int


def pool_sizes(game: Rules, variant: Mapping[str, Any]) -> Sizes:
    """The sizes a (game, normalised variant) pool may form."""
    low, high = game.player_range(variant)
    low = max(low, MIN_TABLE)
    recommended = game.table_recommended or game.recommended_players or low
    return Sizes(low, high, min(max(recommended, low), high))


def table_name(game: Rules, variant: Mapping[str, Any]) -> str:
    """The game as a player-count error names it: with the variant that narrows its sizes (Wizard's amigo)."""
    if pool_sizes(game, {}) != pool_sizes(game, variant):
        options = ", ".join(f"{name} {value}" for name, value in variant.items() if value != game.variants[name][0])
        return f"{game.name} ({options})"
    return game.name
