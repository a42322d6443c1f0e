"""Boards that leave provisional players out (docs/api.md, "Leaderboards"): a per-title setting.

By default every board lists provisional players, marked ``provisional: true``. A title named in
``LEADERBOARD_EXCLUDE_PROVISIONAL`` lists settled players only. Every ranked player played within the board's 90
days, and 90 days cannot make a settled rating provisional (docs/ratings.md, "How settled is a rating"), so on a
board "provisional" is exactly "fewer than ``settled_from`` (20) rated games": excluding them is the same rule as
the board's minimum of 5 games with a higher minimum, which the boards' filters and indexes already serve.
"""

from __future__ import annotations

from django.conf import settings

from leaderboards.board import MIN_GAMES
from ratings.config import elo_config


def excluded_titles() -> frozenset[str]:
    """The titles whose boards leave provisional players out (the setting, read at each call)."""
    return frozenset(getattr(settings, "LEADERBOARD_EXCLUDE_PROVISIONAL", ()))


def min_games(title: str) -> int:
    """The least rated games a ranked player of ``title`` has: 5, or the settled bracket's 20 where excluded."""
    if title in excluded_titles():
        return max(MIN_GAMES, elo_config().settled_from)
    return MIN_GAMES
