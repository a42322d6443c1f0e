"""Which table sizes a pool can form: the game's player counts, narrowed by its variant and by the matchmaker.

Pure (no Django): the rules modules say how many players a game takes (docs/games.md); docs/matchmaking.md adds that a
table needs two players and that Hanabi, which has no recommended count for the Elo multiplier, is matched at 3.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from arena.games.hanabi import UNRATED_DECKS
from arena.games.wizard import AMIGO_CARDS
from matchmaking.engine import MIN_TABLE

# docs/matchmaking.md: "the game's recommended size (docs/games.md; Hanabi: 3)". Hanabi's rules module has no
# recommended count (its Elo is a duel with Hanabot), so the matchmaker's choice is written here.
RECOMMENDED: Mapping[str, int] = {"hanabi": 3}


class Rules(Protocol):
    """What this module reads of a game's rules module (``arena.games.get_game``)."""

    title: str
    min_players: int
    max_players: int
    recommended_players: int | None  # None for a cooperative game: RECOMMENDED says


@dataclass(frozen=True, slots=True)
class Sizes:
    """The table sizes of one pool: ``low..high`` inclusive, formed at ``recommended`` while everyone is fresh."""

    low: int
    high: int
    recommended: int


def pool_sizes(game: Rules, variant: Mapping[str, Any]) -> Sizes:
    """The sizes a (game, normalised variant) pool may form."""
    low, high = max(game.min_players, MIN_TABLE), game.max_players
    if game.title == "wizard" and variant.get("rounds") == "amigo":
        # Amigo has card counts for 3 to 5 players only (docs/games.md).
        low, high = max(low, min(AMIGO_CARDS)), min(high, max(AMIGO_CARDS))
    recommended = RECOMMENDED.get(game.title) or game.recommended_players or low
    return Sizes(low, high, min(max(recommended, low), high))


def rated_allowed(game: Rules, variant: Mapping[str, Any]) -> bool:
    """Whether a game of this variant can be recorded rated: a rated pool of Hanabi's hard deck would form
    tables whose results are refused (docs/games.md)."""
    return not (game.title == "hanabi" and variant.get("deck") in UNRATED_DECKS)
