"""Leaderboard reads: one façade over the Redis board and the database board.

With ``REDIS_URL`` set the Redis board answers (one round trip, no database query for a page). When Redis lost
the board, the first reader has a worker rebuild it; until it is back, and whenever Redis is unreachable, the
database answers: slower, never wrong. Without Redis (embedded mode) the database board answers.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Final, TypeVar

from django.utils import timezone
from redis.exceptions import RedisError

from arena.games import get_game
from arena.selectors import player_get
from infra import handoffs
from infra.errors import NotFound
from leaderboards import metrics
from leaderboards.board import (
    ACTIVE_DAYS,
    Board,
    BoardUnavailable,
    Page,
    Unranked,
    active_cutoff,
    unranked_reason,
)
from leaderboards.board_mode import has_board, redis_board_titles
from leaderboards.db_board import DbBoard
from leaderboards.db_board import ranks as db_ranks
from leaderboards.provisional import min_games
from leaderboards.redis_board import RedisBoard
from ratings.models import Rating

log = logging.getLogger(__name__)
T = TypeVar("T")

# A reader found the title's Redis board gone (a restart, a flush): leaderboards/tasks.py has a worker copy it from
# the database, which answers meanwhile. Handed over at once: no write makes it true, a reader saw it.
lost_board_rebuild = handoffs.HandOff("leaderboards: rebuild a lost board")


def board_title(*, game: str) -> str:
    """The title whose board the API serves as ``game``: ``UnknownGame`` (the API's 404 ``unknown_game``), or
    NotFound ``no_leaderboard`` for Hanabi."""
    found = get_game(game)
    if not found.has_leaderboard:
        raise NotFound("no_leaderboard", f"{found.title} has no leaderboard.")
    return found.title


def board_page(*, title: str, offset: int, limit: int) -> Page:
    """``limit`` ranked players from 0-based position ``offset``, with the board's size."""
    return _ask(title, lambda board: board.page(offset=offset, limit=limit))


def board_around(*, title: str, player: str, limit: int) -> Page:
    """The ``limit`` players around ``player`` (a handle); 404 ``player_not_found`` or ``player_not_ranked``.

    The board looks the handle up itself (Redis keeps handle -> member), so the database is asked only when the
    answer is a 404, to tell an unknown player from an unranked one.
    """
    page = _ask(title, lambda board: board.around(player=player, limit=limit))
    if page is None:
        found = player_get(handle=player)
        rating = Rating.objects.filter(player=found, title=title).values_list("games", "last_game_at").first()
        games, last = rating or (0, None)
        message = not_ranked(title=title, games=games, last_game_at=last, banned=found.is_banned)["message"]
        raise NotFound(
            "player_not_ranked", f"{player} is not on the {title} leaderboard: {message}", {"around": message}
        )
    return page


def not_ranked(
    *, title: str, games: int, last_game_at: datetime | None, banned: bool, now: datetime | None = None
) -> dict[str, Any]:
    """Why a player with these rated games in ``title`` is not on its board, as the API shows it (the player
    page's ``not_ranked``, the ``player_not_ranked`` error). A player the rule admits is ``catching_up``: the
    Redis board's sync follows the rating by a moment."""
    game = get_game(title)
    cutoff = active_cutoff(now or timezone.now())
    least = min_games(title)
    why = unranked_reason(
        name=game.name,
        has_board=game.has_leaderboard,
        games=games,
        last_game_at=last_game_at,
        banned=banned,
        cutoff=cutoff,
        min_games=least,
    )
    if why is None:
        why = Unranked("catching_up", "Eligible; the leaderboard adds the player within seconds.")
    return {
        "reason": why.reason,
        "message": why.message,
        "games": games,
        "games_needed": least,
        "last_rated_game_at": last_game_at.isoformat().replace("+00:00", "Z") if last_game_at else None,
        "window_days": ACTIVE_DAYS,
    }


def rank_of(*, title: str, player_id: int) -> int | None:
    """The player's rank on the title's board (ties shared), or None when not on it (never ranked in Hanabi)."""
    if not has_board(title):
        return None
    return _ask(title, lambda board: board.rank(player_id=player_id))


def ranks_of(*, titles: Iterable[str], player_id: int) -> dict[str, int | None]:
    """``rank_of`` for each of ``titles`` (the player page's ranks). Redis answers each board in a round trip of its
    own and no query; the database answers every board Redis did not in one query, so the page costs the same
    whatever the number of games the player is rated in (tests/db/ratings/test_player_page_queries.py)."""
    found: dict[str, int | None] = dict.fromkeys(titles)
    now = timezone.now()
    left = []
    for title in filter(has_board, found):
        answer = _from_redis(title, lambda board: board.rank(player_id=player_id), now)
        if answer is _UNANSWERED:
            left.append(title)
        else:
            found[title] = answer
    if left:
        found.update(db_ranks(titles=left, player_id=player_id, now=now))
    return found


class _Unanswered(enum.Enum):
    """What _from_redis answers when the database must (no Redis, the board lost, Redis unreachable): a value of
    its own, since None is an answer (a player with no rank)."""

    UNANSWERED = enum.auto()


_UNANSWERED: Final = _Unanswered.UNANSWERED


def _ask(title: str, question: Callable[[Board], T]) -> T:
    now = timezone.now()
    answer = _from_redis(title, question, now)
    return question(DbBoard(title, now=now)) if answer is _UNANSWERED else answer


def _from_redis(title: str, question: Callable[[Board], T], now: datetime) -> T | _Unanswered:
    if title not in redis_board_titles():
        return _UNANSWERED
    try:
        return _ask_redis(title, question, now)
    except BoardUnavailable:
        return _UNANSWERED
    except RedisError:
        metrics.FALLBACK.inc()
        log.warning("leaderboard %s: Redis unreachable, answering from the database", title, exc_info=True)
        return _UNANSWERED


def _ask_redis(title: str, question: Callable[[Board], T], now: datetime) -> T:
    try:
        return question(RedisBoard(title, cutoff=active_cutoff(now)))
    except BoardUnavailable:
        # Lost (restart, flush) or never built: a worker rebuilds it (seconds at a million players, too long to
        # hold a request), and the database answers meanwhile.
        handoffs.hand_off(lost_board_rebuild, title, at_once=True)
        raise
