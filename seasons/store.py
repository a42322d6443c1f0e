"""Where the live stage writes: one statement per table per chunk (docs/architecture.md "The storage seams").

PostgreSQL: entries upserted from one JSON document (``INSERT ... ON CONFLICT DO UPDATE``), games in with a binary
COPY.
Any other database (SQLite, embedded): the ORM's ``bulk_create`` with the same meaning. Callers run inside their
transaction holding the season's row lock. ``_postgres()`` is the only place that looks at the database.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

import orjson
from django.db import connection

from infra.db import pg_cursor
from seasons import rules
from seasons.models import SeasonEntry, SeasonGame

# (player_id, points, games, placement_left, league, elo, elo_games, tier, score)
EntryRow = tuple[int, int, int, int, "int | None", float, int, int, float]

_ENTRY_FIELDS = ("points", "games", "placement_left", "league", "elo", "elo_games", "tier", "score")


def _postgres() -> bool:
    return bool(connection.vendor == "postgresql")


def entries_load(*, season_id: int, player_ids: Collection[int]) -> list[EntryRow]:
    """These players' entries, as ``EntryRow`` (one query; on PostgreSQL the ids travel as one binary array)."""
    if not player_ids:
        return []
    if _postgres():
        with pg_cursor() as cur:
            cur.execute(
                "SELECT player_id, " + ", ".join(_ENTRY_FIELDS) + " FROM seasons_seasonentry "
                "WHERE season_id = %b AND player_id = ANY(%b::int8[])",
                [season_id, list(player_ids)],
            )
            rows: list[EntryRow] = cur.fetchall()
            return rows
    return list(
        SeasonEntry.objects.filter(season_id=season_id, player_id__in=list(player_ids)).values_list(
            "player_id", *_ENTRY_FIELDS
        )
    )


def entries_upsert(*, season_id: int, rows: Sequence[EntryRow], carried: bool = False) -> None:
    """Create or overwrite these players' entries (PostgreSQL: one statement fed by one JSON document, which the
    server parses faster than the driver adapts nine arrays). ``carried``: new entries of carried-over players
    (their league is the league carried); an overwrite never changes ``carried``."""
    if not rows:
        return
    if _postgres():
        with pg_cursor(binary=False) as cur:
            cur.execute(
                "INSERT INTO seasons_seasonentry (season_id, player_id, points, games, placement_left, league, elo, "
                "elo_games, tier, score, carried) SELECT %s, (e->>0)::int8, (e->>1)::int4, (e->>2)::int4, "
                "(e->>3)::int4, (e->>4)::int2, (e->>5)::float8, (e->>6)::int4, (e->>7)::int2, (e->>8)::float8, "
                "CASE WHEN %s THEN (e->>4)::int2 END FROM json_array_elements(%s::json) AS e "
                "ON CONFLICT (season_id, player_id) DO UPDATE SET "
                + ", ".join(f"{f} = EXCLUDED.{f}" for f in _ENTRY_FIELDS),
                [season_id, carried, orjson.dumps(rows).decode()],
            )
        return
    SeasonEntry.objects.bulk_create(
        [
            SeasonEntry(
                season_id=season_id,
                player_id=r[0],
                carried=r[4] if carried else None,
                **dict(zip(_ENTRY_FIELDS, r[1:], strict=True)),
            )
            for r in rows
        ],
        update_conflicts=True,
        unique_fields=["season", "player"],
        update_fields=list(_ENTRY_FIELDS),
        batch_size=2000,
    )


def games_insert(*, season_id: int, rows: Sequence[tuple[int, int, str]]) -> None:
    """Append a chunk's counted games: (game_id, rating_seq, the seats' leagues before it)."""
    if not rows:
        return
    if _postgres():
        with (
            pg_cursor() as cur,
            cur.copy("COPY seasons_seasongame (season_id, game_id, seq, leagues) FROM STDIN (FORMAT BINARY)") as copy,
        ):
            copy.set_types(("int8", "int8", "int8", "varchar"))
            for game_id, seq, code in rows:
                copy.write_row((season_id, game_id, seq, code))
        return
    SeasonGame.objects.bulk_create(
        [SeasonGame(season_id=season_id, game_id=g, seq=q, leagues=c) for g, q, c in rows], batch_size=2000
    )


# A counted game as the stage folds it: (id, recommended_sides, finished_at, rating_seq, seats), a seat being
# (player_id, side, place, quit) in seat order.
GameRow = tuple[int, "int | None", datetime, int, list[tuple[int, int, "int | None", bool]]]

# One statement for a chunk of games and their seats: the games picked by the rating order's index, their seats
# joined. The portable path reads the same with two ORM queries.
_GAMES = """
SELECT g.id, g.recommended_sides, g.finished_at, g.rating_seq, s.player_id, s.side, s.place, s.quit
FROM (SELECT id, recommended_sides, finished_at, rating_seq FROM arena_game
      WHERE title = %b AND status = %b AND rating_seq > %b AND finished_at >= %b AND finished_at < %b
      ORDER BY rating_seq LIMIT %b) AS g
JOIN arena_seat AS s ON s.game_id = g.id
ORDER BY g.rating_seq, s.position
"""


def games_read(*, title: str, starts: datetime, ends: datetime, after_seq: int, limit: int) -> list[GameRow]:
    """The title's rated games finished in [starts, ends) with rating_seq > ``after_seq``, in rating order, at
    most ``limit``, with their seats."""
    from arena.models import Game, Seat

    rated = str(Game.Status.RATED)
    out: list[GameRow] = []
    if _postgres():
        with pg_cursor() as cur:
            cur.execute(_GAMES, [title, rated, after_seq, starts, ends, limit])
            for game_id, sides, finished, seq, pid, side, place, quit_ in cur:
                if not out or out[-1][0] != game_id:
                    out.append((game_id, sides, finished, seq, []))
                out[-1][4].append((pid, side, place, quit_))
        return out
    games = list(
        Game.objects.filter(
            title=title, status=rated, rating_seq__gt=after_seq, finished_at__gte=starts, finished_at__lt=ends
        )
        .order_by("rating_seq")
        .values_list("id", "recommended_sides", "finished_at", "rating_seq")[:limit]
    )
    seats: dict[int, list[tuple[int, int, int | None, bool]]] = {row[0]: [] for row in games}
    for game_id, pid, side, place, quit_ in (
        Seat.objects.filter(game_id__in=list(seats))
        .order_by("game_id", "position")
        .values_list("game_id", "player_id", "side", "place", "quit")
    ):
        seats[game_id].append((pid, side, place, quit_))
    return [(*row, seats[row[0]]) for row in games]


def players_read(*, player_ids: Collection[int]) -> list[tuple[int, str, str]]:
    """(id, handle, status) of these players, in one query (PostgreSQL: the ids as one binary array)."""
    from arena.models import Player

    if _postgres():
        with pg_cursor() as cur:
            cur.execute("SELECT id, handle, status FROM arena_player WHERE id = ANY(%b::int8[])", [list(player_ids)])
            rows: list[tuple[int, str, str]] = cur.fetchall()
            return rows
    return list(Player.objects.filter(id__in=list(player_ids)).values_list("id", "handle", "status"))


# (player_id, rank, league, points, games, placement_left, season_elo, relegation)
FinalRow = tuple[int, int, "int | None", int, int, int, "float | None", bool]


def finals_insert(*, season_id: int, rows: Sequence[FinalRow]) -> None:
    """A closed season's final standings, written once at the close (and again by a correction)."""
    if not rows:
        return
    if _postgres():
        with (
            pg_cursor(binary=False) as cur,
            cur.copy(
                "COPY seasons_seasonfinal (season_id, player_id, rank, league, points, games, placement_left, "
                "season_elo, relegation) FROM STDIN"
            ) as copy,
        ):
            for row in rows:
                copy.write_row((season_id, *row))
        return
    from seasons.models import SeasonFinal

    SeasonFinal.objects.bulk_create(
        [
            SeasonFinal(
                season_id=season_id,
                player_id=r[0],
                rank=r[1],
                league=r[2],
                points=r[3],
                games=r[4],
                placement_left=r[5],
                season_elo=r[6],
                relegation=r[7],
            )
            for r in rows
        ],
        batch_size=5000,
    )


def close_in_database() -> bool:
    """Whether the rollover ranks and carries over inside the database (``close_postgres``)."""
    return _postgres()


# The close in SQL: docs/seasons.md "Standings" and "Carry-over", as seasons.rules.standings and carry_over write
# them. Rank: equal (tier, score) share the first position's rank. Relegation: in a league above bronze, the
# players after the first size - ceil(size * share) (floating point, as the rules compute it). Banned players
# are left out. The carried league: one down, two from the relegation zone, kept when above bronze.
# One sort of the season's entries: every window orders by a prefix of (-tier, score DESC, player_id), a league's
# partition being its tier (placement is tier -1), and the rows go in in that order, the archive's order index's
# (rank, player). The carried entries go in by player, the order of the entries' unique index: both appends.
_CLOSE_FINALS = """
INSERT INTO seasons_seasonfinal (season_id, player_id, rank, league, points, games, placement_left, season_elo,
                                 relegation)
SELECT %(closed)s, player_id, rank() OVER by_key, league, points, games, placement_left,
       CASE WHEN league = %(top)s THEN elo END,
       COALESCE(league > 0 AND row_number() OVER league_order
                > count(*) OVER by_league - ceil(count(*) OVER by_league * %(share)s::float8), false)
FROM seasons_seasonentry AS e
WHERE season_id = %(closed)s
  AND NOT EXISTS (SELECT 1 FROM arena_player AS p WHERE p.id = e.player_id AND p.status = %(banned)s)
WINDOW by_key AS (ORDER BY -tier, score DESC),
       by_league AS (PARTITION BY -tier),
       league_order AS (PARTITION BY -tier ORDER BY score DESC, player_id)
ORDER BY -tier, score DESC, player_id
"""
_CLOSE_CARRY = """
INSERT INTO seasons_seasonentry (season_id, player_id, points, games, placement_left, league, elo, elo_games, tier,
                                 score, carried)
SELECT %(next)s, player_id, (%(thresholds)s::int4[])[c + 1], 0, 0, c, %(initial)s, 0, c,
       CASE WHEN c = %(top)s THEN %(initial)s ELSE (%(thresholds)s::int4[])[c + 1] END, c
FROM (SELECT player_id, GREATEST(0, league - CASE WHEN relegation THEN 2 ELSE 1 END) AS c
      FROM seasons_seasonfinal WHERE season_id = %(closed)s AND league IS NOT NULL) AS f
WHERE c > 0
ORDER BY player_id
"""


def close_postgres(*, closed_id: int, next_id: int, initial: float) -> int:
    """Archive the closed season's final standings and write the next season's carried entries: two statements,
    nothing read into Python, rows written in their indexes' order. Returns the players ranked."""
    from arena.models import Player

    params = {
        "closed": closed_id,
        "next": next_id,
        "initial": initial,
        "top": rules.TOP,
        "share": rules.RELEGATION_SHARE,
        "thresholds": list(rules.THRESHOLDS),
        "banned": str(Player.Status.BANNED),
    }
    with pg_cursor(binary=False) as cur:
        # The window sorts of a million rows in memory rather than in temporary files; this transaction only.
        cur.execute("SET LOCAL work_mem = '256MB'")
        cur.execute(_CLOSE_FINALS, params)
        ranked: int = cur.rowcount
        cur.execute(_CLOSE_CARRY, params)
    return ranked
