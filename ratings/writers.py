"""Bulk writers for the rating stages: a handful of statements per batch, whatever its size.

Why raw SQL: a batch writes thousands of rows, and the ORM's ``bulk_update`` builds one CASE per column per row
while ``bulk_create`` builds one parameter per value. On PostgreSQL history rows go in with a binary COPY and
updates with ``UPDATE ... FROM unnest(arrays)``, one statement each, through a server-binding psycopg cursor
(Django's default client-side binding would render every array as a quoted literal, which costs more than the
write itself). Elsewhere (SQLite, the embedded mode) plain ``executemany`` keeps the same meaning. Callers run
these inside their transaction and hold the stage lock.

Floats travel exactly (binary doubles), so what the planner computed is what the database stores, and a rebuild
can compare bit for bit.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import connection

from arena.db import columns as _columns
from arena.db import pg_cursor, postgres
from arena.models import Game
from ratings.models import Rating, RatingChange
from ratings.plan import ChangeRow

RATING = Rating._meta.db_table
CHANGE = RatingChange._meta.db_table
GAME = Game._meta.db_table
# Columns COPY fills, in ChangeRow order plus the title and the write time, with their PostgreSQL types.
CHANGE_COLUMNS = ("seq", "player_id", "game_id", "kind", "before", "after", "delta", "k", "games_before", "place",
                  "finished_at", "opponent", "title", "created_at")
CHANGE_TYPES = ("int8", "int8", "int8", "varchar", "float8", "float8", "float8", "int2", "int4", "int2",
                "timestamptz", "float8", "varchar", "timestamptz")


def _dt(value: datetime | None) -> object:
    """A datetime as SQLite wants it through a raw cursor (Django's text form, naive UTC)."""
    return connection.ops.adapt_datetimefield_value(value) if value is not None else None


def insert_ratings(*, title: str, rows: Sequence[tuple[int, float, int, datetime | None, float | None, float | None]]
                   ) -> None:
    """New Rating rows: (player_id, elo, games, last_game_at, ts_mu, ts_sigma)."""
    if not rows:
        return
    if postgres():
        with pg_cursor() as cur:
            cur.execute(
                f"INSERT INTO {RATING} (player_id, title, elo, games, last_game_at, ts_mu, ts_sigma) "
                "SELECT v.player_id, %b, v.elo, v.games, v.last_game_at, v.ts_mu, v.ts_sigma "
                "FROM unnest(%b::int8[], %b::float8[], %b::int4[], %b::timestamptz[], %b::float8[], %b::float8[]) "
                "AS v(player_id, elo, games, last_game_at, ts_mu, ts_sigma)",
                [title, *_columns(rows)],
            )
        return
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {RATING} (player_id, title, elo, games, last_game_at, ts_mu, ts_sigma) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [(p, title, e, g, _dt(at), mu, sigma) for p, e, g, at, mu, sigma in rows],
        )


def update_elo(*, rows: Sequence[tuple[int, float, int, datetime | None]]) -> None:
    """Existing Rating rows: (rating_id, elo, games, last_game_at); the later last_game_at wins."""
    if not rows:
        return
    if postgres():
        with pg_cursor() as cur:
            cur.execute(
                f"UPDATE {RATING} AS r SET elo = v.elo, games = v.games, "
                "last_game_at = GREATEST(r.last_game_at, v.last_game_at) "
                "FROM unnest(%b::int8[], %b::float8[], %b::int4[], %b::timestamptz[]) "
                "AS v(id, elo, games, last_game_at) WHERE r.id = v.id",
                _columns(rows),
            )
        return
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {RATING} SET elo = %s, games = %s, last_game_at = CASE "
            "WHEN last_game_at IS NULL OR last_game_at < %s THEN %s ELSE last_game_at END WHERE id = %s",
            [(e, g, _dt(at), _dt(at), rid) for rid, e, g, at in rows],
        )


def update_skill(*, rows: Sequence[tuple[int, float, float]]) -> None:
    """TrueSkill columns of existing Rating rows: (rating_id, mu, sigma); the Elo columns are left alone."""
    if not rows:
        return
    if postgres():
        with pg_cursor() as cur:
            cur.execute(
                f"UPDATE {RATING} AS r SET ts_mu = v.mu, ts_sigma = v.sigma "
                "FROM unnest(%b::int8[], %b::float8[], %b::float8[]) AS v(id, mu, sigma) WHERE r.id = v.id",
                _columns(rows),
            )
        return
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {RATING} SET ts_mu = %s, ts_sigma = %s WHERE id = %s",
                           [(mu, sigma, rid) for rid, mu, sigma in rows])


def lock_ratings(*, ids: Sequence[int]) -> None:
    """Lock Rating rows in id order before updating them.

    The Elo stage locks its rows in id order when it reads them; taking the TrueSkill stage's row locks in the
    same order means the two stages may wait for each other but never deadlock.
    """
    if ids and postgres():
        with pg_cursor() as cur:
            cur.execute(f"SELECT id FROM {RATING} WHERE id = ANY(%b::int8[]) ORDER BY id FOR UPDATE", [list(ids)])


def insert_changes(*, title: str, rows: Sequence[ChangeRow], created_at: datetime) -> None:
    """History rows, with a binary COPY on PostgreSQL (the fastest way in; one statement)."""
    if not rows:
        return
    if postgres():
        with pg_cursor() as cur, cur.copy(
            f"COPY {CHANGE} ({', '.join(CHANGE_COLUMNS)}) FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.set_types(CHANGE_TYPES)
            write = copy.write_row
            tail = (title, created_at)
            for row in rows:
                write(row + tail)
        return
    placeholders = ", ".join(["%s"] * len(CHANGE_COLUMNS))
    created = _dt(created_at)
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {CHANGE} ({', '.join(CHANGE_COLUMNS)}) VALUES ({placeholders})",
            [(*row[:10], _dt(row.finished_at), row.opponent, title, created) for row in rows],
        )


def mark_games_rated(*, rows: Sequence[tuple[int, int]]) -> None:
    """Games (id, rating_seq) → status rated with their place in the title's order."""
    if not rows:
        return
    if postgres():
        with pg_cursor() as cur:
            cur.execute(
                f"UPDATE {GAME} AS g SET status = %b, rating_seq = v.seq "
                "FROM unnest(%b::int8[], %b::int8[]) AS v(id, seq) WHERE g.id = v.id",
                [Game.Status.RATED.value, *_columns(rows)],
            )
        return
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {GAME} SET status = %s, rating_seq = %s WHERE id = %s",
                           [(Game.Status.RATED.value, seq, game_id) for game_id, seq in rows])


def mark_trueskill_done(*, ids: Iterable[int]) -> None:
    ids = list(ids)
    if not ids:
        return
    if postgres():
        with pg_cursor() as cur:
            cur.execute(f"UPDATE {GAME} SET trueskill_done = true WHERE id = ANY(%b::int8[])", [ids])
        return
    Game.objects.filter(id__in=ids).update(trueskill_done=True)
