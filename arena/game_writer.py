"""Writes of recorded games: players, games and seats, skipping tables that are already stored.

On PostgreSQL one statement does it all (data-modifying CTEs fed by one JSON document): a single game is then
one round trip and, in autocommit, its own transaction; a batch runs the same statement inside the caller's
transaction. The JSON document is one parameter that the server parses, which costs the web process far less
than adapting a parameter (or an array) per value. SQLite, the embedded mode, gets the ORM with the same
meaning inside its IMMEDIATE transaction.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from arena.db import pg_cursor, postgres
from arena.models import Game, Player, Seat

PLAYER, GAME, SEAT = Player._meta.db_table, Game._meta.db_table, Seat._meta.db_table
PENDING, UNRATED, BANNED = Game.Status.PENDING.value, Game.Status.UNRATED.value, Player.Status.BANNED.value


@dataclass(frozen=True)
class SeatRow:
    handle: str
    position: int
    score: int | None
    quit: bool
    team: str | None
    side: int
    place: int | None
    fields: dict[str, Any]
    ip_hash: str
    device_hash: str | None


@dataclass(frozen=True)
class GameRow:
    table_id: str
    title: str
    variant: dict[str, Any]
    rated: bool
    finished_at: datetime
    details: dict[str, Any]
    status: str  # pending or unrated; a banned player turns pending into unrated when written
    rec: int | None
    coop_score: int | None
    warnings: list[dict[str, Any]]
    fingerprint: str
    seats: tuple[SeatRow, ...]


@dataclass(frozen=True)
class Written:
    id: int
    status: str


def games_write(server_id: int, rows: Sequence[GameRow]) -> dict[str, Written]:
    """Insert the games whose table this server has not stored yet, in the given order (ids follow it).

    Returns the written games by table id; a table missing from the answer was already stored (a resend, or
    a concurrent request that committed it first), and nothing of it was written, players included. Unknown
    players are created. A game that was to be rated becomes unrated when one of its players is banned
    (moderation.md).
    """
    if postgres():
        return _write_postgres(server_id, rows)
    return _write_orm(server_id, rows)


# Players: ON CONFLICT DO UPDATE (a no-op rewrite of the handle) rather than DO NOTHING, because only then does
# RETURNING give the id of a player that exists already, even one a concurrent request committed after this
# statement's snapshot was taken. Players are taken in handle order so concurrent games lock them in one order.
_WRITE_SQL = f"""
WITH doc AS (SELECT %s::jsonb AS j),
gi AS (
    SELECT x.* FROM doc, jsonb_to_recordset(doc.j -> 'games')
        AS x(ord int4, t text, ti text, v jsonb, r bool, f timestamptz, d jsonb, s text, rec int2, cs int2,
             w jsonb, fp text)
),
si AS (
    SELECT y.* FROM doc, jsonb_to_recordset(doc.j -> 'seats')
        AS y(t text, h text, pos int2, sc int4, q bool, te text, side int2, pl int2, f jsonb, ip text, dev text)
),
banned AS (
    SELECT DISTINCT si.t FROM si JOIN {PLAYER} p ON p.handle = si.h WHERE p.status = '{BANNED}'
),
g AS (
    INSERT INTO {GAME} (server_id, table_id, title, variant, rated, finished_at, accepted_at, details, status,
                        rec, coop_score, warnings, same_ip, fingerprint, trueskill_done)
    SELECT (doc.j ->> 'server')::int8, gi.t, gi.ti, gi.v, gi.r, gi.f, now(), gi.d,
           CASE WHEN gi.s = '{PENDING}' AND gi.t IN (SELECT t FROM banned) THEN '{UNRATED}' ELSE gi.s END,
           gi.rec, gi.cs, gi.w, jsonb_array_length(gi.w) > 0, gi.fp, false
    FROM gi, doc ORDER BY gi.ord
    ON CONFLICT (server_id, table_id) DO NOTHING
    RETURNING id, table_id, status
),
p AS (
    INSERT INTO {PLAYER} (handle, status, created_at)
    SELECT DISTINCT si.h, 'active', now() FROM si JOIN g ON g.table_id = si.t ORDER BY 1
    ON CONFLICT (handle) DO UPDATE SET handle = EXCLUDED.handle
    RETURNING id, handle
),
seats AS (
    INSERT INTO {SEAT} (game_id, player_id, position, score, quit, team, side, place, fields, ip_hash,
                        device_hash)
    SELECT g.id, p.id, si.pos, si.sc, si.q, si.te, si.side, si.pl, si.f, si.ip, si.dev
    FROM si JOIN g ON g.table_id = si.t JOIN p ON p.handle = si.h
)
SELECT id, table_id, status FROM g
"""


def _write_postgres(server_id: int, rows: Sequence[GameRow]) -> dict[str, Written]:
    doc = {
        "server": server_id,
        "games": [
            {"ord": i, "t": r.table_id, "ti": r.title, "v": r.variant, "r": r.rated, "f": r.finished_at.isoformat(),
             "d": r.details, "s": r.status, "rec": r.rec, "cs": r.coop_score, "w": r.warnings, "fp": r.fingerprint}
            for i, r in enumerate(rows)
        ],
        "seats": [
            {"t": r.table_id, "h": s.handle, "pos": s.position, "sc": s.score, "q": s.quit, "te": s.team,
             "side": s.side, "pl": s.place, "f": s.fields, "ip": s.ip_hash, "dev": s.device_hash}
            for r in rows for s in r.seats
        ],
    }
    with pg_cursor(binary=False) as cur:
        cur.execute(_WRITE_SQL, [json.dumps(doc, separators=(",", ":"))], prepare=True)
        return {table_id: Written(game_id, status) for game_id, table_id, status in cur.fetchall()}


def _players_fetch_or_create(handles: set[str]) -> dict[str, tuple[int, bool]]:
    """Every player by handle as (id, banned), creating the unknown ones."""
    def fetch(names: Sequence[str]) -> dict[str, tuple[int, bool]]:
        rows = Player.objects.filter(handle__in=names).values_list("handle", "id", "status")
        return {h: (i, s == BANNED) for h, i, s in rows}

    known = fetch(list(handles))
    missing = sorted(handles - known.keys())
    if missing:
        Player.objects.bulk_create([Player(handle=h) for h in missing], ignore_conflicts=True)
        known.update(fetch(missing))
    return known


def _write_orm(server_id: int, rows: Sequence[GameRow]) -> dict[str, Written]:
    """The same write through the ORM; the caller's transaction makes the stored-table check race-free."""
    stored = set(Game.objects.filter(server_id=server_id, table_id__in=[r.table_id for r in rows])
                 .values_list("table_id", flat=True))
    rows = [r for r in rows if r.table_id not in stored]
    if not rows:
        return {}
    players = _players_fetch_or_create({s.handle for r in rows for s in r.seats})
    now = timezone.now()
    games = []
    for r in rows:
        banned = any(players[s.handle][1] for s in r.seats)
        games.append(Game(
            server_id=server_id, table_id=r.table_id, title=r.title, variant=r.variant, rated=r.rated,
            finished_at=r.finished_at, accepted_at=now, details=r.details,
            status=UNRATED if banned and r.status == PENDING else r.status, rec=r.rec, coop_score=r.coop_score,
            warnings=r.warnings, same_ip=bool(r.warnings), fingerprint=r.fingerprint,
        ))
    Game.objects.bulk_create(games)
    Seat.objects.bulk_create([
        Seat(game=game, player_id=players[s.handle][0], position=s.position, score=s.score, quit=s.quit,
             team=s.team, side=s.side, place=s.place, fields=s.fields, ip_hash=s.ip_hash, device_hash=s.device_hash)
        for game, r in zip(games, rows, strict=True)
        for s in r.seats
    ])
    return {g.table_id: Written(g.pk, g.status) for g in games}
