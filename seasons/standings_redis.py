"""An open season's standings as Redis keys: a copy of the database's entries, written by the live stage each batch.

Why a copy: a page of a million-player season read from the database costs an index walk and a count of everything
above it; the boards answer from Redis in one round trip (``leaderboards/redis_board.py``), and so do these.

Keys of one season (``{title}`` is a Redis Cluster hash tag, so a title's keys share a node and a script may touch
them together); ``S`` is the season's id:

- ``ss:{title}:S``        sorted set, every score 0, member = the order key (``sort_key``, 17 characters) followed by
                          the player id padded to 12 digits. Equal scores sort by member bytes, so ascending order is
                          the standings' order: league high to low (placement last), points (the season Elo in the
                          top league) high to low, then player id. A float score could not hold a league and an
                          exact Elo together; a byte string can.
- ``ss:{title}:S:meta``   hash padded id -> ``key<TAB>handle<TAB>league<TAB>points<TAB>games<TAB>placement_left<TAB>
                          elo``: a page needs no database query, and the key finds the player's member.
- ``ss:{title}:S:stamp``  the ``Season.version`` this copy holds. Every write to the season's entries bumps the version
                          in its transaction; a read answers from Redis only when the stamp equals the version the
                          reader just read with the season, so Redis never answers with other standings than the
                          database's. Missing or behind: the reader answers from the database and asks for a rebuild.

Ranks share ties: 1 + the members whose 17-character key is strictly lower (``ZLEXCOUNT``). Banned players are not
in the copy: a ban or an unban bumps the season's version, and the next read rebuilds. Each read is one Lua script,
one round trip. Redis must not evict these keys (they carry no TTL; the season's close unlinks them).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import islice
from typing import Any

from redis.commands.core import Script

from infra.redis import redis_client

MEMBER_WIDTH = 12
KEY_WIDTH = 17
# Players per pipelined write while rebuilding.
REBUILD_CHUNK = 10_000
# A rebuild asked for is asked once a minute at most, whoever reads meanwhile.
REQUEST_TTL = 60
_TOP_TIER = 5  # rules.TOP; tier -1 (placement) sorts last as "6"
_MASK = (1 << 64) - 1


def sort_key(tier: int, score: float) -> str:
    """17 characters whose byte order is the standings' order of (tier, score), best first: one digit for the tier
    (elite "0" ... bronze "5", placement "6"), then the score's IEEE 754 bits made order-preserving and inverted, so
    a higher score sorts first, in hexadecimal. Equal (tier, score) give equal keys: a shared rank."""
    bits = struct.unpack(">Q", struct.pack(">d", score + 0.0))[0]  # + 0.0: -0.0 ties 0.0, as in the database
    ordered = (~bits & _MASK) if bits >> 63 else bits | (1 << 63)
    return f"{_TOP_TIER - tier}{_MASK - ordered:016x}"


def member(key: str, player_id: int) -> str:
    return f"{key}{player_id:0{MEMBER_WIDTH}d}"


def meta(key: str, handle: str, league: int | None, points: int, games: int, left: int, elo: float) -> str:
    return f"{key}\t{handle}\t{'' if league is None else league}\t{points}\t{games}\t{left}\t{elo!r}"


@dataclass(frozen=True, slots=True)
class Keys:
    board: str
    meta: str
    stamp: str
    requested: str


@cache
def keys(title: str, season_id: int) -> Keys:
    base = f"ss:{{{title}}}:{season_id}"
    return Keys(board=base, meta=f"{base}:meta", stamp=f"{base}:stamp", requested=f"{base}:requested")


@cache
def _script(source: str) -> Script:
    return redis_client().register_script(source)


# KEYS: board, meta, stamp. ARGV: version, mode (page | around | rank), offset (page) or padded id, limit.
# Replies: nil (no copy of this version); {total, -1, sizes} (around or rank of a player not in it);
# {total, -2, sizes, rank} (rank);
# {total, start, sizes} (past the end); {total, start, sizes, first_rank, members, metas}.
# sizes: the count of each tier's prefix, placement ("6") first, elite ("0") last. The window of around mirrors
# seasons.rules.window_start.
_READ = """
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return false end
local total = redis.call('ZCARD', KEYS[1])
local sizes = {}
for t = 6, 0, -1 do
  sizes[#sizes + 1] = redis.call('ZLEXCOUNT', KEYS[1], '[' .. t, '(' .. (t + 1))
end
if ARGV[2] == 'rank' then
  local m = redis.call('HGET', KEYS[2], ARGV[3])
  if not m then return {total, -1, sizes} end
  return {total, -2, sizes, redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. string.sub(m, 1, 17)) + 1}
end
local limit = tonumber(ARGV[4])
local start
if ARGV[2] == 'page' then
  start = tonumber(ARGV[3])
else
  local m = redis.call('HGET', KEYS[2], ARGV[3])
  if not m then return {total, -1, sizes} end
  local position = redis.call('ZRANK', KEYS[1], string.sub(m, 1, 17) .. ARGV[3])
  if not position then return {total, -1, sizes} end
  start = position - math.floor((limit - 1) / 2)
  if start > total - limit then start = total - limit end
  if start < 0 then start = 0 end
end
local rows = redis.call('ZRANGE', KEYS[1], start, start + limit - 1)
if #rows == 0 then return {total, start, sizes} end
local first = redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. string.sub(rows[1], 1, 17)) + 1
local ids = {}
for i = 1, #rows do ids[i] = string.sub(rows[i], 18) end
return {total, start, sizes, first, rows, redis.call('HMGET', KEYS[2], unpack(ids))}
"""

# KEYS: board, meta, stamp. ARGV: the version the copy must hold, the version it holds after, n, then n x (padded
# id, old member or "", new member or "" (banned: leaves), meta). Returns 1 if applied, 0 if the copy was not of
# that version (then it is dropped: the next read rebuilds it).
_WRITE = """
if redis.call('GET', KEYS[3]) ~= ARGV[1] then
  redis.call('DEL', KEYS[3])
  return 0
end
local n = tonumber(ARGV[3])
for i = 0, n - 1 do
  local b = 4 + 4 * i
  if ARGV[b + 1] ~= '' then redis.call('ZREM', KEYS[1], ARGV[b + 1]) end
  if ARGV[b + 2] ~= '' then
    redis.call('ZADD', KEYS[1], 0, ARGV[b + 2])
    redis.call('HSET', KEYS[2], ARGV[b], ARGV[b + 3])
  else
    redis.call('HDEL', KEYS[2], ARGV[b])
  end
end
redis.call('SET', KEYS[3], ARGV[2])
return 1
"""

# KEYS: board, meta, stamp, tmp board, tmp meta. ARGV: version. The copy swapped in at once.
_SWAP = """
redis.call('DEL', KEYS[1], KEYS[2])
if redis.call('EXISTS', KEYS[4]) == 1 then
  redis.call('RENAME', KEYS[4], KEYS[1])
  redis.call('PERSIST', KEYS[1])
end
if redis.call('EXISTS', KEYS[5]) == 1 then
  redis.call('RENAME', KEYS[5], KEYS[2])
  redis.call('PERSIST', KEYS[2])
end
redis.call('SET', KEYS[3], ARGV[1])
return 1
"""


@dataclass(frozen=True, slots=True)
class Reply:
    """A page read from the copy: the total, league sizes (league index or None for placement -> players), the
    0-based start, the first row's rank and the rows as the database path shapes them."""

    total: int
    sizes: dict[int | None, int]
    start: int
    first_rank: int
    rows: list[dict[str, Any]]
    found: bool = True


def read(title: str, season_id: int, version: int, *, mode: str, arg: int, limit: int) -> Reply | None:
    """One round trip; None when the copy is missing or of another version (the caller asks the database).
    ``rank``: the player's rank alone, in ``first_rank``."""
    k = keys(title, season_id)
    ref = arg if mode == "page" else f"{arg:0{MEMBER_WIDTH}d}"
    reply = _script(_READ)(keys=[k.board, k.meta, k.stamp], args=[version, mode, ref, limit])
    if reply is None:
        return None
    total, start, counts = reply[0], reply[1], reply[2]
    sizes = {(tier if tier >= 0 else None): n for tier, n in zip(range(-1, 6), counts, strict=True) if n}
    if start == -1:
        return Reply(total, sizes, 0, 0, [], found=False)
    if start == -2:
        return Reply(total, sizes, 0, reply[3], [])
    if len(reply) == 3:
        return Reply(total, sizes, start, 0, [])
    rows = []
    for m, value in zip(reply[4], reply[5], strict=True):
        key, handle, league, points, games, left, elo = value.decode().split("\t")
        tier = _TOP_TIER - int(key[0])
        rows.append(
            {
                "player_id": int(m[KEY_WIDTH:]),
                "player__handle": handle,
                "league": int(league) if league else None,
                "points": int(points),
                "games": int(games),
                "placement_left": int(left),
                "elo": float(elo),
                "tier": tier,
                "key": key,
            }
        )
    return Reply(total, sizes, start, reply[3], rows)


# (player id, handle, banned, the entry's tier and score before or None, and after:
#  (league, points, games, placement_left, elo, tier, score))
Change = tuple[int, str, bool, "tuple[int, float] | None", tuple["int | None", int, int, int, float, int, float]]


def write(title: str, season_id: int, *, before: int, after: int, changes: Sequence[Change]) -> bool:
    """The stage's batch, in one script call (one round trip): each player's old member out, the new one in (a
    banned player only out), the stamp moved from ``before`` to ``after``. False when the copy was not at
    ``before`` (missing, or a rebuild of another version): it is dropped, and a reader has it rebuilt."""
    k = keys(title, season_id)
    args: list[str | int] = [before, after, len(changes)]
    for pid, handle, banned, old, (league, points, games, left, elo, tier, score) in changes:
        key = sort_key(tier, score)
        args += [
            f"{pid:0{MEMBER_WIDTH}d}",
            member(sort_key(*old), pid) if old is not None else "",
            "" if banned else member(key, pid),
            meta(key, handle, league, points, games, left, elo),
        ]
    return bool(_script(_WRITE)(keys=[k.board, k.meta, k.stamp], args=args))


# (player id, handle, league, points, games, placement_left, elo, tier, score)
Stored = tuple[int, str, "int | None", int, int, int, float, int, float]


def rebuild(title: str, season_id: int, version: int, entries: Iterable[Stored]) -> int:
    """Copy the season's entries (banned players already left out) into temporary keys, then swap them in with
    the stamp ``version`` in one script. Returns the players written."""
    client = redis_client()
    k = keys(title, season_id)
    tmp_board, tmp_meta = f"{k.board}:tmp", f"{k.meta}:tmp"
    client.delete(tmp_board, tmp_meta)
    written = 0
    iterator = iter(entries)
    while chunk := list(islice(iterator, REBUILD_CHUNK)):
        members, metas = {}, {}
        for pid, handle, league, points, games, left, elo, tier, score in chunk:
            key = sort_key(tier, score)
            members[member(key, pid)] = 0
            metas[f"{pid:0{MEMBER_WIDTH}d}"] = meta(key, handle, league, points, games, left, elo)
        pipe = client.pipeline(transaction=False)
        pipe.zadd(tmp_board, members)
        pipe.hset(tmp_meta, mapping=metas)
        pipe.expire(tmp_board, 3600)
        pipe.expire(tmp_meta, 3600)
        pipe.execute()
        written += len(chunk)
    _script(_SWAP)(keys=[k.board, k.meta, k.stamp, tmp_board, tmp_meta], args=[version])
    client.delete(k.requested)
    return written


def request_rebuild(title: str, season_id: int) -> bool:
    """True for the first caller in a minute: that caller has the copy rebuilt."""
    return bool(redis_client().set(keys(title, season_id).requested, 1, nx=True, ex=REQUEST_TTL))


def drop(title: str, season_id: int) -> None:
    """A closed season's copy is never read again (closed seasons read the archive)."""
    k = keys(title, season_id)
    redis_client().unlink(k.board, k.meta, k.stamp, k.requested)
