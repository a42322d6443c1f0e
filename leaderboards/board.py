"""What a leaderboard is, independent of where it is stored: eligibility, ranks with ties, pages and windows.

Pure Python (no Django, no Redis), so the rules read in one place and both boards (Redis, database) and the
tests share them.

Order: by Elo, highest first; players with the same Elo share a rank (1, 2, 2, 4) and are listed by player id,
lowest first. Both boards list ties in that order, so a page is the same whichever board answers it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple, Protocol

# docs/api.md: fewer rated games than this and a rating says too little about the player.
MIN_GAMES = 5
# docs/api.md: a board of players who stopped playing months ago would hide the ones who play now.
ACTIVE_DAYS = 90
# docs/api.md: the largest page (and window) a client may ask for.
MAX_LIMIT = 200
DEFAULT_PAGE_LIMIT = 50
DEFAULT_AROUND_LIMIT = 11


def active_cutoff(now: datetime) -> datetime:
    """Ranked players have a rated game strictly after this moment ("a rated game in the last 90 days")."""
    return now - timedelta(days=ACTIVE_DAYS)


def is_eligible(
    *, games: int, last_game_at: datetime | None, banned: bool, cutoff: datetime, min_games: int = MIN_GAMES
) -> bool:
    """Who is on a board (docs/api.md): the one statement of the rule.

    Two mirrors restate it where a Python call per player would cost too much, and are held to this function's
    answers on random data (tests/db/leaderboards/test_eligibility.py, tests/services/test_leaderboard_redis.py):
    ``DbBoard.eligible`` as a query filter, and the Redis board, whose syncs and rebuilds add only the players
    this function admits and whose read script drops, at each read, those whose last game is not after the
    cutoff (the one part of the rule that changes with the clock alone).

    ``min_games``: the title's minimum (``leaderboards.provisional.min_games``: 5, or 20 on a board that leaves
    provisional players out).
    """
    return not banned and games >= min_games and last_game_at is not None and last_game_at > cutoff


class Unranked(NamedTuple):
    """Why a player is not on a board (docs/api.md "Why not on the board"): a stable ``reason`` and a sentence."""

    reason: str  # no_leaderboard, banned, too_few_games, provisional, inactive
    message: str


def unranked_reason(
    *,
    name: str,
    has_board: bool,
    games: int,
    last_game_at: datetime | None,
    banned: bool,
    cutoff: datetime,
    min_games: int = MIN_GAMES,
) -> Unranked | None:
    """The first rule of ``is_eligible`` the player fails, said for a person; None when the player is eligible.

    ``name`` is the game's name. Kept beside ``is_eligible`` so the reasons cannot drift from the rule."""
    if not has_board:
        return Unranked(
            "no_leaderboard", f"{name} has no leaderboard: its Elo is too easy to boost by talking outside the game."
        )
    if banned:
        return Unranked("banned", "A banned player is on no leaderboard.")
    if games < MIN_GAMES:
        plural = "game" if games == 1 else "games"
        return Unranked(
            "too_few_games",
            f"{games} rated {name} {plural} so far; {MIN_GAMES} are needed to be ranked ({MIN_GAMES - games} more).",
        )
    if games < min_games:
        return Unranked(
            "provisional",
            f"{games} rated {name} games: the rating is still provisional, and this "
            f"board lists settled players only, from {min_games} games "
            f"({min_games - games} more).",
        )
    if last_game_at is None or last_game_at <= cutoff:
        last = "none" if last_game_at is None else last_game_at.date().isoformat()
        return Unranked(
            "inactive",
            f"The last rated {name} game finished on {last}, not within the last "
            f"{ACTIVE_DAYS} days (since {cutoff.date().isoformat()}); one more rated game "
            "brings the player back.",
        )
    return None


class RankedEntry(NamedTuple):
    """A ranked player on a page (a tuple: a page is built on every request, frozen dataclasses cost 4x)."""

    rank: int
    player_id: int
    player: str
    elo: float
    games: int

    def as_json(self) -> dict[str, object]:
        return {"rank": self.rank, "player": self.player, "elo": round(self.elo, 2), "games": self.games}


class Page(NamedTuple):
    total: int
    entries: list[RankedEntry]


class Row(NamedTuple):
    """A ranked player as a board lists it, before ranks are assigned."""

    player_id: int
    player: str
    elo: float
    games: int


def assign_ranks(rows: Sequence[tuple[int, str, float, int]], *, start: int, first_rank: int) -> list[RankedEntry]:
    """Ranks for a slice of the board (rows shaped like ``Row``) that begins at 0-based position ``start``.

    ``first_rank`` is 1 + the number of players with a strictly higher Elo than the slice's first row (one count
    by the board). Below it, a row that ties the row above shares its rank; any other row has every player above
    it strictly higher, so its rank is its position + 1. One count per page, whatever its length.
    """
    entries: list[RankedEntry] = []
    rank = first_rank
    previous: float | None = None
    for i, (player_id, player, elo, games) in enumerate(rows):
        if i and elo != previous:
            rank = start + i + 1
        previous = elo
        entries.append(RankedEntry(rank, player_id, player, elo, games))
    return entries


def window_start(*, position: int, total: int, limit: int) -> int:
    """First position of the ``limit``-long window around the player at ``position`` (0-based).

    Centred (with an even limit, one more row below than above), then shifted to stay inside the board, so a
    window near the top or the bottom still has ``limit`` rows when the board has them.
    """
    start = position - (limit - 1) // 2
    return max(0, min(start, total - limit))


class BoardUnavailable(Exception):
    """This board cannot answer now (Redis lost it, or is unreachable): the caller asks the database instead."""


class Board(Protocol):
    """One title's leaderboard. ``around`` (by handle) and ``rank`` (by id) return None for a player not on it."""

    def page(self, *, offset: int, limit: int) -> Page: ...

    def around(self, *, player: str, limit: int) -> Page | None: ...

    def rank(self, *, player_id: int) -> int | None: ...


def unique_ids(player_ids: Iterable[int]) -> list[int]:
    return sorted({int(pid) for pid in player_ids})
