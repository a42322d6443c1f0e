"""Which titles have a board, and whether those boards are kept in Redis: the board's mode, chosen here once.

Scaled out (Redis configured, ``infra.mode``) every board title has a Redis board beside the database's answer;
embedded there are none and every read is the database's. The sync, the sweeps, the lost-board check, the ban
listener, the rebuild command and the reads ask ``redis_board_titles`` rather than the mode themselves, so a third
shape (boards in Redis for some titles only) would change this module alone.
"""

from __future__ import annotations

from arena.games import UnknownGame, all_games, get_game
from infra import mode


def board_titles() -> list[str]:
    """Every title that has a leaderboard (all but Hanabi)."""
    return [game.title for game in all_games() if game.has_leaderboard]


def has_board(title: str) -> bool:
    """Whether ``title`` names a game with a leaderboard (an unknown title has none)."""
    try:
        return get_game(title).has_leaderboard
    except UnknownGame:
        return False


def redis_board_titles() -> list[str]:
    """The titles whose board is kept in Redis: every board title when Redis is configured, none embedded."""
    return board_titles() if mode.redis_configured() else []
