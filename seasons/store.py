"""Where the live stage writes: one statement per table per chunk (docs/architecture.md "The storage seams").

PostgreSQL: entries upserted from ``unnest`` arrays (``INSERT ... ON CONFLICT DO UPDATE``), lines in with a COPY.
Any other database (SQLite, embedded): the ORM's ``bulk_create`` with the same meaning. Callers run inside their
transaction holding the season's row lock. ``_postgres()`` is the only place that looks at the database.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection

from infra.db import pg_cursor
from seasons.models import SeasonEntry, SeasonLine

# (player_id, points, games, placement_left, league, elo, elo_games, tier, score)
EntryRow = tuple[int, int, int, int, "int | None", float, int, int, float]
# (player_id, game_id, finished_at, place, sides, opponents, points, league_after)
LineRow = tuple[int, int, datetime, int, int, "list[Any]", int, "int | None"]

_ENTRY_FIELDS = ("points", "games", "placement_left", "league", "elo", "elo_games", "tier", "score")


def _postgres() -> bool:
    vendor: str = connection.vendor
    return vendor == "postgresql"


def entries_upsert(*, season_id: int, rows: Sequence[EntryRow]) -> None:
    """Create or overwrite these players' entries."""
    if not rows:
        return
    if _postgres():
        cols = list(zip(*rows, strict=True))
        with pg_cursor() as cur:
            cur.execute(
                "INSERT INTO seasons_seasonentry (season_id, player_id, points, games, placement_left, league, elo, "
                "elo_games, tier, score) SELECT %s, * FROM unnest(%s::bigint[], %s::int[], %s::int[], %s::int[], "
                "%s::smallint[], %s::float8[], %s::int[], %s::smallint[], %s::float8[]) "
                "ON CONFLICT (season_id, player_id) DO UPDATE SET "
                + ", ".join(f"{f} = EXCLUDED.{f}" for f in _ENTRY_FIELDS),
                [season_id, *[list(c) for c in cols]])
        return
    SeasonEntry.objects.bulk_create(
        [SeasonEntry(season_id=season_id, player_id=r[0], **dict(zip(_ENTRY_FIELDS, r[1:], strict=True)))
         for r in rows], update_conflicts=True, unique_fields=["season", "player"], update_fields=list(_ENTRY_FIELDS),
        batch_size=2000)


def lines_insert(*, season_id: int, rows: Sequence[LineRow]) -> None:
    """Append the lines of a chunk of games."""
    if not rows:
        return
    if _postgres():
        with pg_cursor(binary=False) as cur, cur.copy(
                "COPY seasons_seasonline (season_id, player_id, game_id, finished_at, place, sides, opponents, "
                "points, league_after) FROM STDIN") as copy:
            for pid, game_id, at, place, sides, opponents, points, league in rows:
                copy.write_row((season_id, pid, game_id, at, place, sides, json.dumps(opponents), points, league))
        return
    SeasonLine.objects.bulk_create([
        SeasonLine(season_id=season_id, player_id=r[0], game_id=r[1], finished_at=r[2], place=r[3], sides=r[4],
                   opponents=r[5], points=r[6], league_after=r[7]) for r in rows], batch_size=2000)


# (player_id, rank, league, points, games, placement_left, season_elo, relegation)
FinalRow = tuple[int, int, "int | None", int, int, int, "float | None", bool]


def finals_insert(*, season_id: int, rows: Sequence[FinalRow]) -> None:
    """A closed season's final standings, written once at the close (and again by a correction)."""
    if not rows:
        return
    if _postgres():
        with pg_cursor(binary=False) as cur, cur.copy(
                "COPY seasons_seasonfinal (season_id, player_id, rank, league, points, games, placement_left, "
                "season_elo, relegation) FROM STDIN") as copy:
            for row in rows:
                copy.write_row((season_id, *row))
        return
    from seasons.models import SeasonFinal

    SeasonFinal.objects.bulk_create([
        SeasonFinal(season_id=season_id, player_id=r[0], rank=r[1], league=r[2], points=r[3], games=r[4],
                    placement_left=r[5], season_elo=r[6], relegation=r[7]) for r in rows], batch_size=5000)
