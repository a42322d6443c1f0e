"""The season stage against the Elo stage, and a rollover at scale, on PostgreSQL; run by hand, prints figures.

    createdb -h 127.0.0.1 -U postgres arena_seasons_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_seasons_bench .venv/bin/python manage.py migrate
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_seasons_bench .venv/bin/python bench/season_bench.py

It empties the database's games, players, ratings and seasons first, so it refuses a database whose name lacks
"bench". In one run:

- stage: the same pending four-player games rated batch by batch by ``elo_stage_run`` (the Elo stage), each batch
  followed by ``season_follow`` (the season stage folding it); the season stage's total time as a share of the Elo
  stage's (docs/seasons.md; the issue's limit is 10 %);
- read: the first standings page against the first leaderboard page over the same players, both from Redis when
  ``REDIS_URL`` is set (use your own Redis database number), p50 and p99 in the same run;
- rollover: ``season_rollover`` of a season holding ``--entries`` entries (written directly), timed.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.db import connection  # noqa: E402

from arena.models import Game, GameServer, Player, Seat  # noqa: E402
from infra.announcements import silenced  # noqa: E402
from ratings.elo_batch import elo_stage_run  # noqa: E402
from seasons.models import Season  # noqa: E402
from seasons.services import season_follow, season_open, season_rollover  # noqa: E402

NOW = datetime(2026, 10, 6, tzinfo=UTC)
END = datetime(2027, 1, 4, tzinfo=UTC)


def reset() -> None:
    if "bench" not in connection.settings_dict["NAME"]:
        sys.exit("refusing: the database name must contain 'bench'")
    with connection.cursor() as cur:
        cur.execute(
            "TRUNCATE seasons_season, seasons_seasonentry, seasons_seasongame, seasons_seasonfinal, "
            "seasons_seasoncorrection, seasons_seasonrollover, ratings_ratingchange, ratings_rating, "
            "ratings_reputation, ratings_ratingstage, arena_seat, arena_game, arena_player, arena_gameserver "
            "RESTART IDENTITY CASCADE"
        )


def players(count: int, prefix: str) -> list[int]:
    Player.objects.bulk_create([Player(handle=f"{prefix}{i}") for i in range(count)], batch_size=10000)
    return list(Player.objects.filter(handle__startswith=prefix).order_by("id").values_list("id", flat=True))


def pending_games(count: int, pool: list[int], rnd: random.Random) -> None:
    server = GameServer.objects.create(name="bench", key_prefix="b", key_hash="bench")
    for start in range(0, count, 5000):
        games = Game.objects.bulk_create(
            [
                Game(
                    server=server,
                    table_id=f"B-{i}",
                    title="wizard",
                    rated=True,
                    finished_at=NOW + timedelta(seconds=i),
                    status=Game.Status.PENDING,
                    fingerprint="x",
                    recommended_sides=4,
                )
                for i in range(start, min(count, start + 5000))
            ]
        )
        seats = []
        for game in games:
            for position, pid in enumerate(rnd.sample(pool, 4)):
                seats.append(
                    Seat(game=game, player_id=pid, position=position, side=position, place=position + 1, ip_hash="h")
                )
        Seat.objects.bulk_create(seats, batch_size=20000)


def stage(batch: int) -> tuple[float, float, int]:
    elo = season = 0.0
    games = 0
    with silenced():
        while True:
            t0 = time.perf_counter()
            result = elo_stage_run(title="wizard", limit=batch)
            t1 = time.perf_counter()
            if not result or not result.games:
                break
            season_follow(title="wizard")
            t2 = time.perf_counter()
            elo += t1 - t0
            season += t2 - t1
            games += result.games
    return elo, season, games


def rollover(entries: int) -> float:
    """A season of ``entries`` players (points drawn evenly from 0 to 1,200, so every league is full; written by
    SQL), analysed, then ``season_rollover`` timed: the archive and the next season's carried entries."""
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO arena_player (handle, status, created_at) SELECT 'r' || i, 'active', now() "
            "FROM generate_series(1, %s) AS i",
            [entries],
        )
    season = Season.objects.create(title="nile", number=1, starts_at=NOW - timedelta(days=1), ends_at=END)
    with connection.cursor() as cur:
        cur.execute("SELECT setseed(0.7)")
        cur.execute(
            "INSERT INTO seasons_seasonentry (season_id, player_id, points, games, placement_left, league, elo, "
            "elo_games, tier, score) SELECT %s, id, points, 10, 0, league, elo, 10, league, "
            "CASE WHEN league = 5 THEN elo ELSE points END FROM (SELECT id, points, elo, CASE WHEN points < 100 "
            "THEN 0 WHEN points < 250 THEN 1 WHEN points < 450 THEN 2 WHEN points < 700 THEN 3 WHEN points < 1000 "
            "THEN 4 ELSE 5 END AS league FROM (SELECT id, floor(random() * 1201)::int AS points, "
            "1500 + random() * 300 AS elo FROM arena_player WHERE handle LIKE 'r%%') AS drawn) AS placed",
            [season.pk],
        )
    ids = list(Player.objects.filter(handle__startswith="r").values_list("id", flat=True))
    reads(season, ids, random.Random(7))
    vacuum()
    t0 = time.perf_counter()
    season_rollover(title="nile", now=END)
    return time.perf_counter() - t0


def vacuum() -> None:
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def reads(season: Season, ids: list[int], rnd: random.Random, n: int = 100) -> None:
    """The season's first page against the leaderboard's first page over the same players, in turns. With
    ``REDIS_URL`` set both are first copied into Redis (the board by its rebuild, the season by the one its stage's
    readers ask for) and answer from there, as in production; without it both answer from the database."""
    from django.utils import timezone

    from infra import mode
    from leaderboards.redis_board import is_ready
    from leaderboards.selectors import board_page
    from leaderboards.services import board_rebuild
    from seasons import standings, standings_redis
    from seasons.selectors import standings_live

    at = timezone.now()
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO ratings_rating (player_id, title, elo, games, last_game_at) "
            "SELECT p, 'nile', 1500 + random() * 400, 10, %s FROM unnest(%s::int8[]) AS p",
            [at, ids],
        )
    vacuum()
    where = "database"
    if mode.redis_configured():
        t0 = time.perf_counter()
        board_rebuild(title="nile")
        t1 = time.perf_counter()
        standings.rebuild(season_id=season.pk)
        t2 = time.perf_counter()
        season.refresh_from_db()
        held = standings_redis.read(season.title, season.pk, season.version, mode="page", arg=0, limit=1)
        assert is_ready("nile") and held is not None, "both copies must be in Redis before timing"
        where = "Redis"
        print(f"copies into Redis: board {t1 - t0:.1f} s, season {t2 - t1:.1f} s ({len(ids)} players)")
    season_times, board_times = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        standings_live(season=season, offset=0, limit=50)
        t1 = time.perf_counter()
        board_page(title="nile", offset=0, limit=50)
        t2 = time.perf_counter()
        season_times.append(t1 - t0)
        board_times.append(t2 - t1)
    sp, bp = percentile(season_times, 0.99), percentile(board_times, 0.99)
    print(
        f"read ({where}): first page of {len(ids)} players, p50/p99: season {percentile(season_times, 0.5) * 1000:.2f}/"
        f"{sp * 1000:.2f} ms, board {percentile(board_times, 0.5) * 1000:.2f}/{bp * 1000:.2f} ms; "
        f"season / board p99 = {sp / bp:.2f}x (limit 2x)"
    )
    if mode.redis_configured():
        standings_redis.drop(season.title, season.pk)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--batch", type=int, default=1_000)
    parser.add_argument("--entries", type=int, default=100_000)
    args = parser.parse_args()
    reset()
    rnd = random.Random(1)
    pending_games(args.games, players(args.players, "p"), rnd)
    season_open(title="wizard", now=NOW)
    elo, season, games = stage(args.batch)
    print(
        f"stage: {games} games in batches of {args.batch}: Elo stage {elo:.2f} s ({games / elo:.0f} games/s), "
        f"season stage {season:.2f} s; season / Elo = {season / elo:.1%} (limit 10 %)"
    )
    took = rollover(args.entries)
    print(
        f"rollover: {args.entries} entries archived and the next season opened in {took:.2f} s "
        f"({args.entries / took:.0f} entries/s; 1,000,000 would take about {1_000_000 / args.entries * took:.0f} s, "
        "limit 60 s)"
    )


if __name__ == "__main__":
    main()
