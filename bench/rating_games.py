"""The rating bench's games: pending four-player games written with COPY (not through the API), and their twins.

One layout of seats is written several times under different titles, so every path the bench compares (the real
Elo stage, the raw-SQL floor, the stage without reputation in bench/rating_bench.py, the ledger's twin in
bench/ledger_bench.py) rates the very same games. It empties the games, players and ratings first: the benches
run it only on a database whose name says "bench".
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from django.db import connection

from arena.models import GameServer, Player
from bench.game_rows import PENDING_GAMES_COPY, pending_game
from bench.harness import say

TITLE = "wizard"
NAIVE_TITLE = "tokaido"
FLOOR_TITLE = "floor"
# The twin rated without reputation: a competitive title the bench rates nothing else in.
BASE_TITLE = "spades"
# Share of the games with four distinct places whose last player quit: the cool-down path runs too.
QUIT_SHARE = 0.05
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


def reset_database() -> None:
    with connection.cursor() as cur:
        cur.execute(
            "TRUNCATE ratings_ratingchange, ratings_rating, ratings_ratingstage, ratings_reputation, "
            "arena_seat, arena_game, arena_player, arena_gameserver, seasons_season, seasons_seasonentry, "
            "seasons_seasongame, seasons_seasonfinal, seasons_seasoncorrection RESTART IDENTITY CASCADE"
        )


def make_games(
    title: str,
    count: int,
    players: list[int],
    server_id: int,
    rnd: random.Random,
    first_id: int,
    quits: dict[int, int] | None = None,
) -> list[list[tuple[int, int, int]]]:
    """COPY ``count`` pending four-player games; returns each game's seats as (player_id, side, place)."""
    games = []
    seats = []
    layout = []
    for n in range(count):
        game_id = first_id + n
        table = rnd.sample(players, 4)
        if rnd.random() < 0.1:
            places = sorted(rnd.choice([[1, 1, 3, 4], [1, 2, 2, 4], [1, 2, 3, 3], [1, 1, 1, 1]]))
        else:
            places = [1, 2, 3, 4]
        rnd.shuffle(places)
        quitter = places.index(4) if quits is not None and len(set(places)) == 4 and rnd.random() < QUIT_SHARE else None
        if quitter is not None:
            quits[n] = quitter
        # Sides best first, ties in position order (what recording stores).
        order = sorted(range(4), key=lambda i: (places[i], i))
        side_of = {pos: side for side, pos in enumerate(order)}
        finished = EPOCH + timedelta(seconds=n)
        games.append(
            (
                game_id,
                server_id,
                f"{title}-{n}",
                title,
                '{"rounds": "standard"}',
                True,
                finished,
                finished,
                "{}",
                "pending",
                4,
                None,
                "[]",
                False,
                "bench",
                None,
            )
        )
        game_seats = []
        for pos, player_id in enumerate(table):
            seats.append(
                (
                    game_id,
                    player_id,
                    pos,
                    100 - 10 * places[pos],
                    pos == quitter,
                    None,
                    side_of[pos],
                    places[pos],
                    "{}",
                    "bench-ip",
                    None,
                )
            )
            game_seats.append((player_id, side_of[pos], places[pos]))
        layout.append(game_seats)
    with connection.cursor() as cur:
        with cur.cursor.copy(
            "COPY arena_game (id, server_id, table_id, title, variant, rated, finished_at, accepted_at, details, "
            "status, recommended_sides, coop_score, warnings, same_ip, fingerprint, rating_seq) "
            "FROM STDIN"
        ) as copy:
            for row in games:
                copy.write_row(row)
        with cur.cursor.copy(
            "COPY arena_seat (game_id, player_id, position, score, quit, team, side, place, fields, ip_hash, "
            "device_hash) FROM STDIN"
        ) as copy:
            for row in seats:
                copy.write_row(row)
        cur.execute("SELECT setval(pg_get_serial_sequence('arena_game', 'id'), (SELECT max(id) FROM arena_game))")
    return layout


def copy_games(
    *, first_id: int, layout: list, server_id: int, title: str, table_prefix: str, quits: dict[int, int] | None = None
) -> None:
    """The benchmark games again under another title, same seats (and ``quits``, game number -> seat): the floor's
    twin (``FLOOR_TITLE``, no quits) and the twin rated with reputation switched off (``BASE_TITLE``)."""
    quits = quits or {}
    with connection.cursor() as cur:
        with cur.cursor.copy(PENDING_GAMES_COPY) as copy:
            for n in range(len(layout)):
                finished = EPOCH + timedelta(seconds=n)
                copy.write_row(pending_game(first_id + n, server_id, f"{table_prefix}-{n}", title, finished))
        with cur.cursor.copy(
            "COPY arena_seat (game_id, player_id, position, score, quit, side, place, fields, ip_hash) FROM STDIN"
        ) as copy:
            for n, seats in enumerate(layout):
                for pos, (player_id, side, place) in enumerate(seats):
                    copy.write_row(
                        (first_id + n, player_id, pos, 0, quits.get(n) == pos, side, place, "{}", "bench-ip")
                    )
        cur.execute("SELECT setval(pg_get_serial_sequence('arena_game', 'id'), (SELECT max(id) FROM arena_game))")


def setup(games: int, naive: int, player_count: int, seed: int) -> tuple[list, int]:
    rnd = random.Random(seed)
    reset_database()
    server = GameServer.objects.create(name="bench", key_prefix="bench", key_hash="bench")
    with (
        connection.cursor() as cur,
        cur.cursor.copy("COPY arena_player (handle, status, created_at) FROM STDIN") as copy,
    ):
        now = datetime.now(UTC)
        for i in range(player_count):
            copy.write_row((f"bench{i}", "active", now))
    players = list(Player.objects.values_list("id", flat=True))
    quits: dict[int, int] = {}
    layout = make_games(TITLE, games, players, server.pk, rnd, 1, quits)
    make_games(NAIVE_TITLE, naive, players, server.pk, rnd, games + 1)
    copy_games(first_id=games + naive + 1, layout=layout, server_id=server.pk, title=FLOOR_TITLE, table_prefix="floor")
    copy_games(
        first_id=2 * games + naive + 1,
        layout=layout,
        server_id=server.pk,
        title=BASE_TITLE,
        table_prefix="twin",
        quits=quits,
    )
    say(f"  {len(quits)} games end with a quit")
    return layout, games + naive + 1


def vacuum() -> None:
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE")
