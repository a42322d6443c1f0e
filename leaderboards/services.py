"""Writes to the Redis boards: sync after a rating batch or a ban, rebuild from the database, prune the inactive.

The database is the source of truth; these functions only copy it. In embedded mode (no ``REDIS_URL``) they do
nothing: the database board reads the ratings directly, so it is always in step.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django.db import connection
from django.utils import timezone
from redis.exceptions import LockError, RedisError
from redis.lock import Lock

from arena.models import Player
from leaderboards import redis_board
from leaderboards.board import BoardUnavailable, active_cutoff, is_eligible, unique_ids
from leaderboards.board_mode import board_titles, redis_board_titles
from leaderboards.db_board import DbBoard
from leaderboards.provisional import min_games
from leaderboards.redis_board import Ranked, RedisBoard
from leaderboards.sql import Epoch
from ratings.models import Rating

log = logging.getLogger(__name__)

# Player ids per database query while syncing (one indexed IN query per chunk).
_SYNC_QUERY_CHUNK = 1000


def _enabled(title: str) -> bool:
    return title in redis_board_titles()


def board_sync(*, title: str, player_ids: Iterable[int]) -> None:
    """Brings these players' places on the title's Redis board in line with the database.

    Called after the commit of each Elo batch (and of a ban or unban). Reads the players' ratings and status in
    one query per 1000 players, then adds the eligible and removes the rest. A Redis failure is logged and
    the board forgotten when possible (the next read rebuilds it), never raised: the ratings are committed.
    """
    ids = unique_ids(player_ids)
    if not ids or not _enabled(title):
        return
    try:
        lock = redis_board.sync_lock(title)
        locked = lock.acquire()
        if not locked:
            log.warning("leaderboard %s: sync lock busy for 30 s, syncing without it", title)
        try:
            add, remove = _read_players(title, ids)
            redis_board.apply(title, add=add, remove=remove)
        finally:
            if locked:
                _release(lock)
    except RedisError:
        log.exception("leaderboard %s: sync of %d players failed; forgetting the board", title, len(ids))
        try:
            redis_board.invalidate(title)
        except RedisError:
            log.exception("leaderboard %s: could not forget the board either", title)


def _read_players(title: str, ids: list[int]) -> tuple[list[Ranked], list[int]]:
    cutoff = active_cutoff(timezone.now())
    least = min_games(title)
    add: list[Ranked] = []
    seen: set[int] = set()
    for i in range(0, len(ids), _SYNC_QUERY_CHUNK):
        rows = Rating.objects.filter(title=title, player_id__in=ids[i : i + _SYNC_QUERY_CHUNK]).values_list(
            "player_id", "player__handle", "elo", "games", "last_game_at", "player__status"
        )
        for player_id, handle, elo, games, last_game_at, status in rows:
            banned = status == Player.Status.BANNED
            if is_eligible(games=games, last_game_at=last_game_at, banned=banned, cutoff=cutoff, min_games=least):
                add.append(Ranked(player_id, handle, elo, games, last_game_at.timestamp()))
                seen.add(player_id)
    return add, [pid for pid in ids if pid not in seen]


@dataclass(frozen=True, slots=True)
class Rebuilt:
    title: str
    players: int
    seconds: float


def board_rebuild(*, title: str, wait: bool = True) -> Rebuilt | None:
    """Replaces the title's Redis board by a copy of the database's, atomically (temporary keys, then RENAME).

    One rebuild per title at a time (a Redis lock): with ``wait=False`` returns None at once when another
    process is rebuilding. Ratings committed while copying are not lost: their syncs are recorded and replayed
    after the swap.
    """
    lock = redis_board.rebuild_lock(title, blocking=wait)
    if not lock.acquire():
        return None
    started = time.perf_counter()
    try:
        token = redis_board.begin_rebuild(title)
        try:
            written, dirty = redis_board.finish_rebuild(title, token, _snapshot(title), on_chunk=lock.reacquire)
        except BaseException:
            redis_board.abort_rebuild(title, token)
            raise
    finally:
        _release(lock)
    if dirty:
        board_sync(title=title, player_ids=dirty)
    rebuilt = Rebuilt(title=title, players=written, seconds=time.perf_counter() - started)
    log.info("leaderboard %s rebuilt: %d players in %.2f s", title, rebuilt.players, rebuilt.seconds)
    return rebuilt


def _snapshot(title: str) -> Iterator[Ranked]:
    """The ranked players as of now, streamed through a server-side cursor on PostgreSQL.

    The ORM's query, run on a plain cursor: its per-row conversions cost more than the copy into Redis at a
    million rows, and the time arrives as epoch seconds (``Epoch``) rather than as a million datetimes.
    """
    rows = DbBoard(title).eligible().values_list("player_id", "player__handle", "elo", "games", Epoch("last_game_at"))
    sql, params = rows.query.sql_with_params()
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(redis_board.REBUILD_CHUNK):
            yield from map(Ranked._make, chunk)


def boards_rebuild(*, titles: Iterable[str] | None = None) -> list[Rebuilt]:
    """Rebuilds every board (or the given titles), waiting for any rebuild already running."""
    return [r for title in (titles or board_titles()) if (r := board_rebuild(title=title)) is not None]


def boards_prune() -> dict[str, int]:
    """Takes players whose last rated game is 90 days old off every ready board; returns the boards' sizes.

    Reads prune too (so answers are exact to the second); this keeps idle boards small and their reads quick.
    A board found lost is rebuilt here, so it comes back even if no one reads it.
    """
    cutoff = active_cutoff(timezone.now())
    sizes = {}
    for title in redis_board_titles():
        try:
            sizes[title] = RedisBoard(title, cutoff=cutoff).prune()
        except BoardUnavailable:
            if rebuilt := board_rebuild(title=title, wait=False):
                sizes[title] = rebuilt.players
    return sizes


def boards_lost() -> list[str]:
    """The titles whose Redis board is missing (Redis restarted or flushed, a rebuild killed before its swap).

    The record of a lost board's rebuild is the board's own absence, read from Redis each time rather than kept in
    a message: whatever became of the queued ``rebuild_board``, the sweep asking this finds the work again.
    """
    return [title for title in redis_board_titles() if not redis_board.is_ready(title)]


def _release(lock: Lock) -> None:
    try:
        lock.release()
    except LockError:
        # It expired while we held it: whoever holds it now releases their own.
        log.warning("leaderboard lock %s expired before release", lock.name)
