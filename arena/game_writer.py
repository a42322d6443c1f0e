"""Bulk writes of recorded games: players, games and seats in a handful of statements per call.

PostgreSQL gets ``INSERT ... SELECT FROM unnest(arrays)`` through a binary server-binding cursor (one statement
per table, whatever the batch size); SQLite, the embedded mode, gets the ORM's ``bulk_create`` with the same
meaning. Callers run these inside their transaction.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from arena.db import columns, pg_cursor, postgres
from arena.models import Game, Player, Seat

PLAYER, GAME, SEAT = Player._meta.db_table, Game._meta.db_table, Seat._meta.db_table


@dataclass(frozen=True)
class KnownPlayer:
    id: int
    banned: bool


@dataclass(frozen=True)
class GameRow:
    table_id: str
    title: str
    variant: dict[str, Any]
    rated: bool
    finished_at: datetime
    details: dict[str, Any]
    status: str
    rec: int | None
    coop_score: int | None
    warnings: list[dict[str, Any]]
    fingerprint: str


@dataclass(frozen=True)
class SeatRow:
    player_id: int
    position: int
    score: int | None
    quit: bool
    team: str | None
    side: int
    place: int | None
    fields: dict[str, Any]
    ip_hash: str
    device_hash: str | None


def _select_players(handles: Sequence[str]) -> dict[str, KnownPlayer]:
    banned = Player.Status.BANNED
    if postgres():
        with pg_cursor() as cur:
            cur.execute(f"SELECT handle, id, status FROM {PLAYER} WHERE handle = ANY(%b::text[])", [list(handles)])
            return {h: KnownPlayer(i, s == banned) for h, i, s in cur.fetchall()}
    rows = Player.objects.filter(handle__in=handles).values_list("handle", "id", "status")
    return {h: KnownPlayer(i, s == banned) for h, i, s in rows}


def players_fetch_or_create(handles: set[str]) -> dict[str, KnownPlayer]:
    """Every player by handle, creating the unknown ones; safe against a concurrent first sighting."""
    known = _select_players(list(handles))
    missing = sorted(handles - known.keys())
    if missing:
        # Sorted, so two requests creating the same new players take their index locks in one order (no deadlock).
        Player.objects.bulk_create([Player(handle=h) for h in missing], ignore_conflicts=True)
        known.update(_select_players(missing))
    return known


def insert_games(server_id: int, rows: Sequence[GameRow], seats: Sequence[Sequence[SeatRow]]) -> list[int]:
    """Insert the games in the given order (so ids follow it) with their seats; return the ids in that order.

    On PostgreSQL games and seats go in with one statement (a data-modifying CTE), so recording a game costs
    one round trip for both tables.
    """
    if postgres():
        return _insert_postgres(server_id, rows, seats)
    now = timezone.now()
    games = [
        Game(server_id=server_id, table_id=r.table_id, title=r.title, variant=r.variant, rated=r.rated,
             finished_at=r.finished_at, accepted_at=now, details=r.details, status=r.status, rec=r.rec,
             coop_score=r.coop_score, warnings=r.warnings, same_ip=bool(r.warnings), fingerprint=r.fingerprint)
        for r in rows
    ]
    Game.objects.bulk_create(games)
    Seat.objects.bulk_create([
        Seat(game=game, player_id=s.player_id, position=s.position, score=s.score, quit=s.quit, team=s.team,
             side=s.side, place=s.place, fields=s.fields, ip_hash=s.ip_hash, device_hash=s.device_hash)
        for game, game_seats in zip(games, seats, strict=True)
        for s in game_seats
    ])
    return [g.pk for g in games]


def _insert_postgres(server_id: int, rows: Sequence[GameRow], seats: Sequence[Sequence[SeatRow]]) -> list[int]:
    game_values = [
        (r.table_id, r.title, json.dumps(r.variant), r.rated, r.finished_at, json.dumps(r.details), r.status,
         r.rec, r.coop_score, json.dumps(r.warnings), bool(r.warnings), r.fingerprint)
        for r in rows
    ]
    seat_values = [
        (r.table_id, s.player_id, s.position, s.score, s.quit, s.team, s.side, s.place, json.dumps(s.fields),
         s.ip_hash, s.device_hash)
        for r, game_seats in zip(rows, seats, strict=True)
        for s in game_seats
    ]
    with pg_cursor() as cur:
        cur.execute(
            "WITH g AS ("
            f" INSERT INTO {GAME} (server_id, table_id, title, variant, rated, finished_at, accepted_at, details,"
            "  status, rec, coop_score, warnings, same_ip, fingerprint, trueskill_done)"
            " SELECT %b, t, ti, v::jsonb, r, f, now(), d::jsonb, s, rec, cs, w::jsonb, si, fp, false"
            " FROM unnest(%b::text[], %b::text[], %b::text[], %b::bool[], %b::timestamptz[], %b::text[],"
            "  %b::text[], %b::int2[], %b::int2[], %b::text[], %b::bool[], %b::text[])"
            "  WITH ORDINALITY AS x(t, ti, v, r, f, d, s, rec, cs, w, si, fp, ord) ORDER BY ord"
            " RETURNING id, table_id),"
            " seats AS ("
            f" INSERT INTO {SEAT} (game_id, player_id, position, score, quit, team, side, place, fields, ip_hash,"
            "  device_hash)"
            " SELECT g.id, p, pos, sc, q, te, si, pl, f::jsonb, ip, dev"
            " FROM unnest(%b::text[], %b::int8[], %b::int2[], %b::int4[], %b::bool[], %b::text[], %b::int2[],"
            "  %b::int2[], %b::text[], %b::text[], %b::text[]) AS y(t, p, pos, sc, q, te, si, pl, f, ip, dev)"
            " JOIN g ON g.table_id = y.t)"
            " SELECT id, table_id FROM g",
            [server_id, *columns(game_values), *columns(seat_values)],
        )
        ids = {table_id: game_id for game_id, table_id in cur.fetchall()}
    return [ids[r.table_id] for r in rows]
