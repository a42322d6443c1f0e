"""The leaderboard as Redis keys: a copy of the database's answer, kept in step by the rating workers.

Keys of one title (``{title}`` is a Redis Cluster hash tag, so a title's keys live on one node and the scripts
may touch them together):

- ``lb:{title}``        sorted set of the ranked players only: member = player id zero-padded to 12 digits,
                        score = -elo. Ascending order is then "Elo high to low, ties by player id low to high"
                        (Redis orders equal scores by member bytes), the same order as the database board.
- ``lb:{title}:seen``   sorted set, same members, score = last rated game (epoch seconds): who goes stale next.
- ``lb:{title}:meta``   hash member -> ``"games:handle"``, so a page needs no database query.
- ``lb:{title}:ids``    hash handle -> member, so "around alice" needs none either. Only ever added to until the
                        next rebuild: a handle whose member is no longer on the board is simply not ranked.
- ``lb:{title}:ready``  written last by a rebuild. Missing means Redis lost the board (restart, flush,
                        never built): reads raise BoardUnavailable; the reader answers from the database and
                        the first one (``lb:{title}:requested``, SET NX) has a worker rebuild the board.
- ``lb:{title}:rebuilding`` and ``lb:{title}:dirty``: while a rebuild copies the database, every sync also
                        records its players in ``dirty``; the rebuild re-syncs them after the swap, so a rating
                        committed after the rebuild's snapshot is not lost.
- ``lb:{title}:lock`` (one rebuild at a time) and ``lb:{title}:sync`` (syncs of a title one at a time, so a
                        sync that read the database earlier never writes after one that read it later).
- ``lb:{title}:tmp:*``  a rebuild's copy, renamed over the live keys at the end (atomic swap).

Ranks share ties: rank = 1 + ZCOUNT of strictly lower scores (strictly higher Elo). Each read is one Lua script,
so one round trip, atomic against syncs. The script first drops players whose last game is older than the
cutoff, so a board is exact at the second, whatever the hourly prune has done. Redis must not evict these keys
(``noeviction`` or a ``volatile-*`` policy; they carry no TTL).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from itertools import islice
from typing import Any, NamedTuple

import redis
from redis.commands.core import Script

from infra.redis import redis_client
from leaderboards.board import BoardUnavailable, Page, assign_ranks

# 12 digits: a trillion player ids, and ties sort by id because the widths are equal.
MEMBER_WIDTH = 12
# Players per sync script call: keeps each call (and its unpack) short, since Redis runs scripts one at a time.
SYNC_CHUNK = 250
# Players per pipelined write while rebuilding: big enough to amortise round trips, small enough for memory.
REBUILD_CHUNK = 10_000
# A crashed rebuild leaves its temporary keys and markers for at most this long.
REBUILD_TTL = 3600
# The rebuild lock expires this long after the rebuild's last sign of life (it is renewed after every chunk), so a
# rebuilder killed mid-way (a request past gunicorn's timeout) holds up the next one for a minute at most.
REBUILD_LOCK_TTL = 60


def member(player_id: int) -> str:
    return f"{player_id:0{MEMBER_WIDTH}d}"


@dataclass(frozen=True, slots=True)
class Keys:
    board: str
    seen: str
    meta: str
    ids: str
    ready: str
    rebuilding: str
    dirty: str
    lock: str
    sync: str
    requested: str


@cache
def keys(title: str) -> Keys:
    base = f"lb:{{{title}}}"
    return Keys(
        board=base,
        seen=f"{base}:seen",
        meta=f"{base}:meta",
        ids=f"{base}:ids",
        ready=f"{base}:ready",
        rebuilding=f"{base}:rebuilding",
        dirty=f"{base}:dirty",
        lock=f"{base}:lock",
        sync=f"{base}:sync",
        requested=f"{base}:requested",
    )


# KEYS: board, seen, meta, ready, ids.
# ARGV: cutoff, mode (page | around | rank | prune), offset (page) or handle (around) or member (rank), limit.
# Replies: nil (board not ready); prune {total}; rank {total, rank or -1};
# page/around {total, start} (empty), {total, -1} (not ranked) or {total, start, first_rank, rows, metas}.
# The window of "around" mirrors leaderboards.board.window_start. The stale sweep at the top mirrors the clock part
# of leaderboards.board.is_eligible (kept: last game strictly after the cutoff); the rest of the rule was applied
# when the player was written (apply, finish_rebuild).
_READ = """
if redis.call('EXISTS', KEYS[4]) == 0 then return false end
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 500)
while #stale > 0 do
  redis.call('ZREM', KEYS[1], unpack(stale))
  redis.call('ZREM', KEYS[2], unpack(stale))
  redis.call('HDEL', KEYS[3], unpack(stale))
  stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 500)
end
local total = redis.call('ZCARD', KEYS[1])
local mode = ARGV[2]
if mode == 'prune' then return {total} end
local limit = tonumber(ARGV[4])
local start
if mode == 'page' then
  start = tonumber(ARGV[3])
else
  local m = ARGV[3]
  if mode == 'around' then m = redis.call('HGET', KEYS[5], ARGV[3]) end
  local position = m and redis.call('ZRANK', KEYS[1], m)
  if not position then return {total, -1} end
  if mode == 'rank' then
    local score = redis.call('ZSCORE', KEYS[1], m)
    return {total, redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. score) + 1}
  end
  start = position - math.floor((limit - 1) / 2)
  if start > total - limit then start = total - limit end
  if start < 0 then start = 0 end
end
local rows = redis.call('ZRANGE', KEYS[1], start, start + limit - 1, 'WITHSCORES')
if #rows == 0 then return {total, start} end
local first = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. rows[2]) + 1
local members = {}
for i = 1, #rows, 2 do members[#members + 1] = rows[i] end
return {total, start, first, rows, redis.call('HMGET', KEYS[3], unpack(members))}
"""

# KEYS: board, seen, meta, ready, rebuilding, dirty, ids.
# ARGV: n, then n x (member, score, seen, meta, handle) to add, then members to remove. Returns 1 if applied.
_SYNC = """
local n = tonumber(ARGV[1])
local removes = {}
for i = 2 + 5 * n, #ARGV do removes[#removes + 1] = ARGV[i] end
if redis.call('EXISTS', KEYS[5]) == 1 then
  local all = {unpack(removes)}
  for i = 0, n - 1 do all[#all + 1] = ARGV[2 + 5 * i] end
  if #all > 0 then redis.call('SADD', KEYS[6], unpack(all)) end
end
if redis.call('EXISTS', KEYS[4]) == 0 then return 0 end
for i = 0, n - 1 do
  local m = ARGV[2 + 5 * i]
  redis.call('ZADD', KEYS[1], ARGV[3 + 5 * i], m)
  redis.call('ZADD', KEYS[2], ARGV[4 + 5 * i], m)
  redis.call('HSET', KEYS[3], m, ARGV[5 + 5 * i])
  redis.call('HSET', KEYS[7], ARGV[6 + 5 * i], m)
end
if #removes > 0 then
  redis.call('ZREM', KEYS[1], unpack(removes))
  redis.call('ZREM', KEYS[2], unpack(removes))
  redis.call('HDEL', KEYS[3], unpack(removes))
end
return 1
"""

# KEYS: the 4 live structures (board, seen, meta, ids), their 4 copies, 4 names for the old ones, then ready,
# rebuilding, dirty, requested. ARGV: token. Moves the live keys aside (the caller unlinks them), the copies in,
# marks the board ready and returns the players synced during the copy. A copy that does not exist (no one
# ranked) leaves no live key.
_SWAP = """
for i = 1, 4 do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('RENAME', KEYS[i], KEYS[8 + i]) end
  if redis.call('EXISTS', KEYS[4 + i]) == 1 then
    redis.call('RENAME', KEYS[4 + i], KEYS[i])
    redis.call('PERSIST', KEYS[i])
  end
end
redis.call('SET', KEYS[13], ARGV[1])
redis.call('DEL', KEYS[14], KEYS[16])
local dirty = redis.call('SMEMBERS', KEYS[15])
redis.call('DEL', KEYS[15])
return dirty
"""


@cache
def _script(source: str) -> Script:
    # Cached per source; redis_client() is itself one client per process. EVALSHA, reloading on NOSCRIPT.
    return redis_client().register_script(source)


class Ranked(NamedTuple):
    """A player as the board stores them (a tuple: a rebuild makes a million of them)."""

    player_id: int
    player: str
    elo: float
    games: int
    seen: float  # the last rated game, in epoch seconds


class RedisBoard:
    """Reads of one title's board; ``now``-relative like the database board, so both give the same answer."""

    def __init__(self, title: str, *, cutoff: datetime) -> None:
        self.keys = keys(title)
        self.cutoff = cutoff.timestamp()

    def page(self, *, offset: int, limit: int) -> Page:
        return self._page(self._read("page", offset, limit))

    def around(self, *, player: str, limit: int) -> Page | None:
        reply = self._read("around", player, limit)
        return None if reply[1] == -1 else self._page(reply)

    def rank(self, *, player_id: int) -> int | None:
        _total, rank = self._read("rank", member(player_id), 1)
        return None if rank == -1 else rank

    def prune(self) -> int:
        """Drops the players whose last game is older than the cutoff; returns how many remain."""
        remaining: int = self._read("prune", 0, 0)[0]
        return remaining

    def _read(self, mode: str, arg: int | str, limit: int) -> list[Any]:
        k = self.keys
        reply: list[Any] | None = _script(_READ)(
            keys=[k.board, k.seen, k.meta, k.ready, k.ids], args=[repr(self.cutoff), mode, arg, limit]
        )
        if reply is None:
            raise BoardUnavailable(k.board)
        return reply

    @staticmethod
    def _page(reply: list[Any]) -> Page:
        total, start = reply[0], reply[1]
        if len(reply) == 2:
            return Page(total=total, entries=[])
        first_rank, flat, metas = reply[2], reply[3], reply[4]
        rows = []
        for i, meta in enumerate(metas):
            games, _, handle = (meta or b"0:?").decode().partition(":")
            rows.append((int(flat[2 * i]), handle, -float(flat[2 * i + 1]), int(games)))
        return Page(total=total, entries=assign_ranks(rows, start=start, first_rank=first_rank))


def apply(title: str, *, add: Sequence[Ranked], remove: Sequence[int]) -> bool:
    """Writes players onto the board and takes others off, atomically per chunk; False when the board is not ready.

    A board that is not ready is left alone (a later rebuild reads the database, which already holds these
    changes), except that a rebuild in progress is told which players to re-read after its swap.
    """
    k = keys(title)
    script = _script(_SYNC)
    script_keys = [k.board, k.seen, k.meta, k.ready, k.rebuilding, k.dirty, k.ids]
    calls: list[tuple[Sequence[Ranked], Sequence[int]]] = [
        (add[i : i + SYNC_CHUNK], ()) for i in range(0, len(add), SYNC_CHUNK)
    ]
    calls += [((), remove[i : i + SYNC_CHUNK]) for i in range(0, len(remove), SYNC_CHUNK)]
    applied = True
    for adds, removes in calls:
        args: list[str | int] = [len(adds)]
        for r in adds:
            args += [member(r.player_id), repr(-r.elo), repr(r.seen), f"{r.games}:{r.player}", r.player]
        args += [member(pid) for pid in removes]
        applied = bool(script(keys=script_keys, args=args)) and applied
    return applied


def sync_lock(title: str) -> redis.lock.Lock:
    """Held around a sync's database read and its write, so syncs of a title land in the order they read."""
    lock: redis.lock.Lock = redis_client().lock(keys(title).sync, timeout=60, blocking_timeout=30)
    return lock


def rebuild_lock(title: str, *, blocking: bool) -> redis.lock.Lock:
    lock: redis.lock.Lock = redis_client().lock(keys(title).lock, timeout=REBUILD_LOCK_TTL, blocking=blocking)
    return lock


def begin_rebuild(title: str) -> str:
    """Marks a rebuild in progress, before its database snapshot, so syncs from now on are recorded as dirty."""
    token = uuid.uuid4().hex
    redis_client().set(keys(title).rebuilding, token, ex=REBUILD_TTL)
    return token


def finish_rebuild(
    title: str, token: str, ranked: Iterable[Ranked], on_chunk: Callable[[], object] = lambda: None
) -> tuple[int, list[int]]:
    """Copies the snapshot into temporary keys, swaps them in at once, marks the board ready.

    ``on_chunk`` runs after each chunk written (the caller renews its lock). Returns (players written, players
    synced while copying: to re-sync now that the board is live).
    """
    client = redis_client()
    k = keys(title)
    tmp = _tmp_keys(k, token)
    written = 0
    iterator: Iterator[Ranked] = iter(ranked)
    while chunk := list(islice(iterator, REBUILD_CHUNK)):
        members = [member(r.player_id) for r in chunk]
        pipe = client.pipeline(transaction=False)
        pipe.zadd(tmp["board"], dict(zip(members, (-r.elo for r in chunk), strict=True)))
        pipe.zadd(tmp["seen"], dict(zip(members, (r.seen for r in chunk), strict=True)))
        pipe.hset(tmp["meta"], mapping=dict(zip(members, (f"{r.games}:{r.player}" for r in chunk), strict=True)))
        pipe.hset(tmp["ids"], mapping=dict(zip((r.player for r in chunk), members, strict=True)))
        for key in tmp.values():
            pipe.expire(key, REBUILD_TTL)
        pipe.execute()
        written += len(chunk)
        on_chunk()
    old = _tmp_keys(k, f"old-{token}")
    dirty = _script(_SWAP)(
        keys=[*_live_keys(k), *tmp.values(), *old.values(), k.ready, k.rebuilding, k.dirty, k.requested],
        args=[token],
    )
    # Freed in the background: deleting a million members in the swap would block Redis for that long.
    client.unlink(*old.values())
    return written, sorted(int(m) for m in dirty)


_STRUCTURES = ("board", "seen", "meta", "ids")


def _live_keys(k: Keys) -> list[str]:
    return [getattr(k, name) for name in _STRUCTURES]


def _tmp_keys(k: Keys, suffix: str) -> dict[str, str]:
    return {name: f"{getattr(k, name)}:tmp:{suffix}" for name in _STRUCTURES}


def abort_rebuild(title: str, token: str) -> None:
    """Removes what a failed rebuild wrote; the live board (if any) is untouched."""
    k = keys(title)
    redis_client().unlink(k.rebuilding, *_tmp_keys(k, token).values())


def request_rebuild(title: str) -> bool:
    """True for the first caller since the last rebuild (or in the last minute): that caller has it rebuilt."""
    return bool(redis_client().set(keys(title).requested, 1, nx=True, ex=REBUILD_LOCK_TTL))


def is_ready(title: str) -> bool:
    """Whether the title's board is there to read (a rebuild wrote its ``ready`` marker and Redis kept it)."""
    return bool(redis_client().exists(keys(title).ready))


def invalidate(title: str) -> None:
    """Forgets the board: the next read rebuilds it from the database."""
    redis_client().delete(keys(title).ready)
