"""The games Arena rates, looked up by title.

Why a plain tuple of instances: the API, the workers and matchmaking all find a game by its title, and adding
a seventh game stays one new module plus one line in ``_GAMES`` below. The modules are pure Python (no
Django), so they can be imported anywhere, including the rating worker and the tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from arena.games.base import GameRules
from arena.games.hanabi import Hanabi
from arena.games.nile import Nile
from arena.games.railroad_ink import RailroadInk
from arena.games.spades import Spades
from arena.games.tokaido import Tokaido
from arena.games.wizard import Wizard

_GAMES: tuple[GameRules, ...] = (
    Wizard(),
    Hanabi(),
    Tokaido(),
    Spades(),
    RailroadInk(),
    Nile(),
)

GAMES: Mapping[str, GameRules] = MappingProxyType({game.title: game for game in _GAMES})


class UnknownGame(LookupError):
    """No game has this title (the API answers 400 ``unknown_game``)."""


def get_game(title: str) -> GameRules:
    """The game with this title; raises UnknownGame for any other."""
    try:
        return GAMES[title]
    except (KeyError, TypeError):
        raise UnknownGame(title) from None


def all_games() -> tuple[GameRules, ...]:
    """Every game, in a stable order (the order of ``_GAMES``)."""
    return _GAMES


__all__ = [
    "GAMES",
    "UnknownGame",
    "all_games",
    "get_game",
]
