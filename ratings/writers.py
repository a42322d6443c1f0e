"""Bulk writers for the rating stages: a handful of statements per batch, whatever its size.

Why raw SQL: a batch writes thousands of rows, and the ORM's ``bulk_update`` builds one CASE per column per row
while ``bulk_create`` builds one parameter per value. On PostgreSQL history rows go in with COPY and updates with
``UPDATE ... FROM unnest(arrays)``, a single statement each; elsewhere (SQLite, the embedded mode) plain
``executemany`` keeps the same meaning. Callers run these inside their transaction and hold the stage lock.

Floats travel exactly: psycopg sends doubles as their shortest round-trip text (or binary), so what the planner
computed is what the database stores, and a rebuild can compare bit for bit.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import connection

from arena.models import Game
from ratings.models import Rating, RatingChange
from ratings.plan import ChangeRow

RATING = Rating._meta.db_table
CHANGE = RatingChange._meta.db_table
GAME = Game._meta.db_table
# Columns COPY fills, in ChangeRow order plus the title and the write time.
CHANGE_COLUMNS = ("seq", "player_id", "game_id", "kind", "before", "after", "delta", "k", "games_before", "place",
                  "finished_at", "opponent", "title", "created_at")


def _postgres() -> bool:
    return connection.vendor == "postgresql"


def _dt(value: datetime | None) -> object:
    """A datetime as this backend's driver wants it (SQLite stores Django's text form, naive UTC)."""
    return connection.ops.adapt_datetimefield_value(value) if value is not None else None


def insert_ratings(*, title: str, rows: Sequence[tuple[int, float, int, datetime | None, float | None, float | None]]
                   ) -> None:
    """New Rating rows: (player_id, elo, games, last_game_at, ts_mu, ts_sigma)."""
    if not rows:
        return
    player_ids, elos, games, lasts, mus, sigmas = (list(column) for column in zip(*rows, strict=True))
    with connection.cursor() as cursor:
        if _postgres():
            cursor.execute(
                f"INSERT INTO {RATING} (player_id, title, elo, games, last_game_at, ts_mu, ts_sigma) "
                "SELECT v.player_id, %s, v.elo, v.games, v.last_game_at, v.ts_mu, v.ts_sigma "
                "FROM unnest(%s::bigint[], %s::float8[], %s::int[], %s::timestamptz[], %s::float8[], %s::float8[]) "
                "AS v(player_id, elo, games, last_game_at, ts_mu, ts_sigma)",
                [title, player_ids, elos, games, lasts, mus, sigmas],
            )
        else:
            cursor.executemany(
                f"INSERT INTO {RATING} (player_id, title, elo, games, last_game_at, ts_mu, ts_sigma) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [(p, title, e, g, _dt(at), mu, sigma) for p, e, g, at, mu, sigma in rows],
            )


def update_elo(*, rows: Sequence[tuple[int, float, int, datetime | None]]) -> None:
    """Existing Rating rows: (rating_id, elo, games, last_game_at); the later last_game_at wins."""
    if not rows:
        return
    with connection.cursor() as cursor:
        if _postgres():
            ids, elos, games, lasts = (list(column) for column in zip(*rows, strict=True))
            cursor.execute(
                f"UPDATE {RATING} AS r SET elo = v.elo, games = v.games, "
                "last_game_at = GREATEST(r.last_game_at, v.last_game_at) "
                "FROM unnest(%s::bigint[], %s::float8[], %s::int[], %s::timestamptz[]) "
                "AS v(id, elo, games, last_game_at) WHERE r.id = v.id",
                [ids, elos, games, lasts],
            )
        else:
            cursor.executemany(
                f"UPDATE {RATING} SET elo = %s, games = %s, last_game_at = CASE "
                "WHEN last_game_at IS NULL OR last_game_at < %s THEN %s ELSE last_game_at END WHERE id = %s",
                [(e, g, _dt(at), _dt(at), rid) for rid, e, g, at in rows],
            )


def update_skill(*, rows: Sequence[tuple[int, float, float]]) -> None:
    """TrueSkill columns of existing Rating rows: (rating_id, mu, sigma); the Elo columns are left alone."""
    if not rows:
        return
    with connection.cursor() as cursor:
        if _postgres():
            ids, mus, sigmas = (list(column) for column in zip(*rows, strict=True))
            cursor.execute(
                f"UPDATE {RATING} AS r SET ts_mu = v.mu, ts_sigma = v.sigma "
                "FROM unnest(%s::bigint[], %s::float8[], %s::float8[]) AS v(id, mu, sigma) WHERE r.id = v.id",
                [ids, mus, sigmas],
            )
        else:
            cursor.executemany(f"UPDATE {RATING} SET ts_mu = %s, ts_sigma = %s WHERE id = %s",
                               [(mu, sigma, rid) for rid, mu, sigma in rows])


def lock_ratings(*, ids: Sequence[int]) -> None:
    """Lock Rating rows in id order before updating them.

    The Elo stage locks its rows in id order when it reads them; taking the TrueSkill stage's row locks in the
    same order means the two stages may wait for each other but never deadlock.
    """
    if ids and _postgres():
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id FROM {RATING} WHERE id = ANY(%s) ORDER BY id FOR UPDATE", [list(ids)])


def insert_changes(*, title: str, rows: Sequence[ChangeRow], created_at: datetime) -> None:
    """History rows, with COPY on PostgreSQL (the fastest way in; one statement)."""
    if not rows:
        return
    with connection.cursor() as cursor:
        if _postgres():
            sql = f"COPY {CHANGE} ({', '.join(CHANGE_COLUMNS)}) FROM STDIN"
            with cursor.cursor.copy(sql) as copy:
                write = copy.write_row
                for row in rows:
                    write((*row, title, created_at))
        else:
            placeholders = ", ".join(["%s"] * len(CHANGE_COLUMNS))
            created = _dt(created_at)
            cursor.executemany(
                f"INSERT INTO {CHANGE} ({', '.join(CHANGE_COLUMNS)}) VALUES ({placeholders})",
                [(*row[:10], _dt(row.finished_at), row.opponent, title, created) for row in rows],
            )


def mark_games_rated(*, rows: Sequence[tuple[int, int]]) -> None:
    """Games (id, rating_seq) → status rated with their place in the title's order."""
    if not rows:
        return
    with connection.cursor() as cursor:
        if _postgres():
            ids, seqs = (list(column) for column in zip(*rows, strict=True))
            cursor.execute(
                f"UPDATE {GAME} AS g SET status = %s, rating_seq = v.seq "
                "FROM unnest(%s::bigint[], %s::bigint[]) AS v(id, seq) WHERE g.id = v.id",
                [Game.Status.RATED, ids, seqs],
            )
        else:
            cursor.executemany(f"UPDATE {GAME} SET status = %s, rating_seq = %s WHERE id = %s",
                               [(Game.Status.RATED, seq, game_id) for game_id, seq in rows])


def mark_trueskill_done(*, ids: Iterable[int], done: bool = True) -> None:
    ids = list(ids)
    if ids:
        Game.objects.filter(id__in=ids).update(trueskill_done=done)
