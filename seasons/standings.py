"""Where the open season's standings are read from, and how the Redis copy follows the entries (docs/seasons.md
"Standings in Redis").

Scaled out (Redis configured, ``infra.mode``) the live stage writes each batch's players into the season's Redis
copy (``seasons/standings_redis.py``) in the transaction that writes their entries, and the API's first page and
``around=`` read the copy when its stamp is the season's ``version``. When it is not (Redis lost it, a replay or a
ban bumped the version, a write failed), the database answers, exactly the same, and the first such
reader has a worker rebuild the copy. Embedded there is no copy and the database answers every read.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping

from django.db import transaction
from django.db.models import F
from redis.exceptions import RedisError

from arena.models import Player
from infra import handoffs, mode
from seasons import standings_redis, store
from seasons.models import Season, SeasonEntry
from seasons.store import EntryRow

log = logging.getLogger(__name__)

# A reader found the open season's Redis copy missing or behind its version: seasons/tasks.py has a worker copy the
# entries again, while the database answers. Handed over at once: no write makes it true, a reader saw it.
lost_copy_rebuild = handoffs.HandOff("seasons: rebuild a season's standings copy")


def kept_in_redis() -> bool:
    """Whether open seasons have a Redis copy of their standings (scaled out) or none (embedded)."""
    return mode.redis_configured()


def after_fold(
    season: Season, *, before: int, rows: Mapping[int, EntryRow], old: Mapping[int, tuple[int, float] | None]
) -> None:
    """The stage folded a batch (caller holds the season's lock, inside its transaction; ``season.version`` is the
    new version, ``before`` the one the copy must hold): its players' new rows into the copy, one query for their
    handles and bans, one script call. A copy not at ``before`` is dropped; Redis unreachable: the copy stays
    behind the version, so readers ask the database until a rebuild."""
    if not kept_in_redis() or not rows:
        return
    players = {
        pid: (handle, status == Player.Status.BANNED) for pid, handle, status in store.players_read(player_ids=rows)
    }
    changes: list[standings_redis.Change] = []
    for pid, (_, points, games, left, league, elo, _, tier, score) in rows.items():
        handle, banned = players[pid]
        changes.append((pid, handle, banned, old.get(pid), (league, points, games, left, elo, tier, score)))
    try:
        standings_redis.write(season.title, season.pk, before=before, after=season.version, changes=changes)
    except RedisError:
        log.warning("season standings: Redis write failed", extra={"title": season.title, "season": season.number})


def read(season: Season, *, mode_: str, arg: int, limit: int) -> standings_redis.Reply | None:
    """The copy's answer, or None (embedded, Redis unreachable, copy missing or of another version: then the copy
    is asked for once a minute, and the caller reads the database)."""
    if not kept_in_redis():
        return None
    try:
        reply = standings_redis.read(season.title, season.pk, season.version, mode=mode_, arg=arg, limit=limit)
        if reply is None and standings_redis.request_rebuild(season.title, season.pk):
            handoffs.hand_off(lost_copy_rebuild, season.pk, at_once=True)
        return reply
    except RedisError:
        log.warning("season standings: Redis read failed", extra={"title": season.title, "season": season.number})
        return None


_STORED = ("player_id", "player__handle", "league", "points", "games", "placement_left", "elo", "tier", "score")


def _stored(season: Season) -> Iterator[standings_redis.Stored]:
    banned = Player.objects.filter(status=Player.Status.BANNED).values("id")
    yield from (
        SeasonEntry.objects.filter(season=season)
        .exclude(player_id__in=banned)
        .values_list(*_STORED)
        .iterator(chunk_size=10_000)
    )


def rebuild(*, season_id: int) -> int:
    """Copy an open season's entries into Redis under the season's lock (no fold runs meanwhile, so the copy is
    exactly the ``version`` it is stamped with). Returns the players written, -1 for a closed season."""
    if not kept_in_redis():
        return 0
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=season_id)
        if season.closed_at is not None:
            return -1
        return standings_redis.rebuild(season.title, season.pk, season.version, _stored(season))


def standings_changed(*, player_id: int) -> int:
    """A ban or an unban moved this player in or out of the open seasons they play: those seasons' versions move,
    so their copies no longer match and rebuild at the next read (a copy cannot hold someone the database leaves
    out, even if Redis was unreachable now). Returns the seasons touched."""
    playing = SeasonEntry.objects.filter(player_id=player_id).values("season_id")
    return Season.objects.filter(closed_at__isnull=True, pk__in=playing).update(version=F("version") + 1)


def drop(season: Season) -> None:
    """A closed season's copy is never read again (a closed season reads its archive)."""
    if not kept_in_redis():
        return
    try:
        standings_redis.drop(season.title, season.pk)
    except RedisError:
        log.warning("season standings: Redis unreachable to drop a closed season's copy")
