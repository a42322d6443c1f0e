"""Rating throughput on PostgreSQL, run by hand; prints figures and ratios against the issue's targets.

    createdb -h 127.0.0.1 -U postgres arena_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_bench .venv/bin/python manage.py migrate
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_bench .venv/bin/python bench/rating_bench.py

It empties the database's games, players and ratings first, so it refuses a database whose name lacks "bench".
In one run, over the same 50,000 four-player pending games (inserted with COPY, not through the API):

- floor:   the rows one Elo batch writes (history COPY, ratings UPDATE ... FROM / INSERT, games UPDATE ... FROM),
           with the batch's values precomputed (the same plan, before the timing), plain psycopg, no reads and no
           logic: what the disk and server cost;
- naive:   one game per transaction through the ORM (a sample of games of another title);
- batch:   ``ratings.elo_batch.elo_stage_run`` until nothing is pending (the real Elo stage, reputation included);
- before reputation: the same stage with its reputation step (``reputations_fold``) switched off, over a twin
           copy of the same games (title "spades"), batch by batch in turn with the real one: the "before" of
           issue 15 (reputation may cost the stage at most 5 %);
- skill:   ``ratings.trueskill_batch.trueskill_stage_run`` over the first games, against a bare in-memory loop of
           ``trueskill.rate`` over the same games;
- CPU: beside each wall time, the CPU the path took: this process's (``time.process_time``) plus its PostgreSQL
           backend's (``/proc/<pid>/schedstat``, when the server runs on this machine). On a shared two-core
           machine the wall clock mostly measures waiting for a core; the CPU ratio is the one to trust there.
- season (``--season``): the season stage (``seasons.services.season_follow``) right after each of our Elo
           batches, folding that batch into the open season, timed on its own: its share of the Elo stage's time
           (issue 28: at most 10 %).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

import psycopg  # noqa: E402
import trueskill  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from arena.models import Game, GameServer, Player, Seat  # noqa: E402
from infra.announcements import silenced  # noqa: E402
from ratings import elo_batch  # noqa: E402
from ratings.config import elo_config  # noqa: E402
from ratings.elo import Standing, rate_sides  # noqa: E402
from ratings.elo_batch import elo_stage_run  # noqa: E402
from ratings.models import Rating, RatingChange, RatingStage, Reputation  # noqa: E402
from ratings.plan import EloPlan, RatedGame  # noqa: E402
from ratings.rebuild import title_replay  # noqa: E402
from ratings.store.tables import CHANGE_TYPES  # noqa: E402
from ratings.trueskill_batch import trueskill_stage_run  # noqa: E402
from seasons.services import season_follow, season_open  # noqa: E402

TITLE = "wizard"
NAIVE_TITLE = "tokaido"
FLOOR_TITLE = "floor"
# The twin rated without reputation: a competitive title the bench rates nothing else in.
BASE_TITLE = "spades"
# Share of the games with four distinct places whose last player quit: the cool-down path runs too.
QUIT_SHARE = 0.05
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


def say(*parts: object) -> None:
    print(*parts, flush=True)


class Clock:
    """Wall and CPU seconds of the timed path: this process's CPU plus that of the PostgreSQL backend serving
    Django's connection (read from /proc, so only when the server runs here; None otherwise)."""

    def __init__(self) -> None:
        connection.ensure_connection()
        with connection.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            pid = cur.fetchone()[0]
        self.stat = Path(f"/proc/{pid}/schedstat")
        if not self.stat.exists():
            self.stat = None

    def backend(self) -> float:
        return int(self.stat.read_text().split()[0]) / 1e9 if self.stat is not None else 0.0

    def now(self) -> tuple[float, float]:
        return time.perf_counter(), time.process_time() + self.backend()


def spent(clock: Clock, since: tuple[float, float], totals: list[float]) -> float:
    """Add the wall and CPU seconds since ``since`` to ``totals`` ([wall, cpu]); returns the wall seconds."""
    wall, cpu = clock.now()
    totals[0] += wall - since[0]
    totals[1] += cpu - since[1]
    return wall - since[0]


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
        with cur.cursor.copy(
            "COPY arena_game (id, server_id, table_id, title, variant, rated, finished_at, "
            "accepted_at, details, status, recommended_sides, warnings, same_ip, fingerprint) FROM STDIN"
        ) as copy:
            for n in range(len(layout)):
                finished = EPOCH + timedelta(seconds=n)
                copy.write_row(
                    (
                        first_id + n,
                        server_id,
                        f"{table_prefix}-{n}",
                        title,
                        "{}",
                        True,
                        finished,
                        finished,
                        "{}",
                        "pending",
                        4,
                        "[]",
                        False,
                        "bench",
                    )
                )
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


class Floor:
    """The writes of every Elo batch, on a twin copy of the games (title "floor"): COPY history, INSERT new ratings,
    UPDATE ratings and games FROM unnest; no reads, no logic.

    The values are the batch's real ones, computed beforehand (outside the timing) by the same plan over the same
    games in the same batches. Constant dummy values (every updated rating 1520.25 with 7 games, as the floor
    wrote until issue 24) put each batch's entries of the ratings' indexes (``rating_by_title_elo``,
    ``rating_leaderboard``) side by side in one place of each B-tree: 15 % less server CPU for the same UPDATE,
    a floor no real batch can reach."""

    def __init__(self, layout: list, batch: int, first_id: int):
        self.prepared = []
        known: set[int] = set()
        plan = EloPlan(states={}, config=elo_config(), hanabi_rules=None)
        seq = 0
        created = datetime.now(UTC)
        tail = (FLOOR_TITLE, created)
        for start in range(0, len(layout), batch):
            first_change = len(plan.changes)
            players: set[int] = set()
            game_ids, seqs = [], []
            for offset, seats in enumerate(layout[start : start + batch]):
                game_id = first_id + start + offset
                seq += 1
                game_ids.append(game_id)
                seqs.append(seq)
                finished = EPOCH + timedelta(seconds=start + offset)
                rated = [(player_id, side, place, False) for player_id, side, place in seats]
                plan.apply_game(RatedGame(game_id, 4, None, finished, None, rated), seq)
                players.update(seat[0] for seat in seats)
            history = [row + tail for row in plan.changes[first_change:]]
            new, old = sorted(players - known), sorted(players & known)
            known |= players
            states = plan.states
            written = [
                [
                    list(ids),
                    [states[p].elo for p in ids],
                    [states[p].games for p in ids],
                    [states[p].last_game_at for p in ids],
                ]
                for ids in (new, old)
            ]
            self.prepared.append((history, written[0], written[1], game_ids, seqs, seq))
        # The best plain psycopg does: server-side binding, binary COPY and binary arrays.
        connection.ensure_connection()
        self.cur = psycopg.Cursor(connection.connection)
        self.cur.format = psycopg.pq.Format.BINARY

    def run(self, index: int) -> None:
        history, new, old, game_ids, seqs, last_seq = self.prepared[index]
        cur = self.cur
        with transaction.atomic():
            with cur.copy(
                "COPY ratings_ratingchange (seq, player_id, game_id, kind, before, after, delta, k, "
                "games_before, place, finished_at, opponent, title, created_at) FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.set_types(CHANGE_TYPES)
                for row in history:
                    copy.write_row(row)
            cur.execute(
                "INSERT INTO ratings_rating (player_id, title, elo, games, last_game_at) "
                "SELECT v.p, %b, v.elo, v.games, v.at FROM unnest(%b::int8[], %b::float8[], %b::int4[], "
                "%b::timestamptz[]) AS v(p, elo, games, at)",
                [FLOOR_TITLE, *new],
            )
            cur.execute(
                "UPDATE ratings_rating AS r SET elo = v.elo, games = v.games, "
                "last_game_at = GREATEST(r.last_game_at, v.at) FROM unnest(%b::int8[], %b::float8[], "
                "%b::int4[], %b::timestamptz[]) AS v(p, elo, games, at) WHERE r.player_id = v.p AND r.title = %b",
                [*old, FLOOR_TITLE],
            )
            cur.execute(
                "UPDATE arena_game AS g SET status = 'rated', rating_seq = v.seq "
                "FROM unnest(%b::int8[], %b::int8[]) AS v(id, seq) WHERE g.id = v.id",
                [game_ids, seqs],
            )
            cur.execute("UPDATE ratings_ratingstage SET last_seq = %b WHERE title = %b", [last_seq, FLOOR_TITLE])


# --season: the season stage's total time after our batches (``season_follow``), and whether it runs.
SEASON = {"on": False, "seconds": 0.0}


def season_after_batch() -> None:
    if SEASON["on"]:
        started = time.perf_counter()
        season_follow(title=TITLE)
        SEASON["seconds"] += time.perf_counter() - started


# Per batch pair (with, without reputation): the ratios of their times. Their median is the steadier figure on a
# shared machine, where a load spike during one batch moves the totals.
PAIR_RATIOS: list[float] = []


# CPU seconds (this process and its PostgreSQL backend) of the floor, our batches and the batches without
# reputation, beside their wall times.
CPU = {"floor": 0.0, "batch": 0.0, "base": 0.0}


def elo_runs(layout: list, batch: int, floor_first_id: int) -> tuple[int, float, float, float]:
    """Floor batch i, then our batch i and the same batch without reputation (in turns: which goes first
    alternates), so all three see the same machine load and table sizes."""
    floor = Floor(layout, batch, floor_first_id)
    RatingStage.objects.create(title=FLOOR_TITLE, stage=RatingStage.Stage.ELO)
    clock = Clock()
    floor_time, batch_time, base_time = [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]
    done = 0
    real_fold = elo_batch.reputations_fold

    def without_reputation() -> float:
        elo_batch.reputations_fold = lambda games: None
        try:
            started = clock.now()
            assert elo_stage_run(title=BASE_TITLE, limit=batch).games
            return spent(clock, started, base_time)
        finally:
            elo_batch.reputations_fold = real_fold

    for index in range(len(floor.prepared)):
        started = clock.now()
        floor.run(index)
        spent(clock, started, floor_time)
        base = without_reputation() if index % 2 else 0.0
        started = clock.now()
        done += elo_stage_run(title=TITLE, limit=batch).games
        real = spent(clock, started, batch_time)
        season_after_batch()
        if not index % 2:
            base = without_reputation()
        PAIR_RATIOS.append(real / base)
    assert elo_stage_run(title=TITLE, limit=batch).games == 0
    assert elo_stage_run(title=BASE_TITLE, limit=batch).games == 0
    CPU.update(floor=floor_time[1], batch=batch_time[1], base=base_time[1])
    return done, floor_time[0], batch_time[0], base_time[0]


def drop_floor() -> None:
    """The floor's twin games and rows are no game's: gone once measured, so ``rebuild_ratings --check`` over
    every title of the bench database checks real titles only."""
    with connection.cursor() as cur:
        for table in ("ratings_ratingchange", "ratings_rating", "ratings_ratingstage"):
            cur.execute(f"DELETE FROM {table} WHERE title = %s", [FLOOR_TITLE])
        cur.execute(
            "DELETE FROM arena_seat WHERE game_id IN (SELECT id FROM arena_game WHERE title = %s)", [FLOOR_TITLE]
        )
        cur.execute("DELETE FROM arena_game WHERE title = %s", [FLOOR_TITLE])


def naive_run(title: str) -> tuple[int, float]:
    """One game per transaction through the ORM: how a first version would do it."""
    config = elo_config()
    ids = list(Game.objects.filter(title=title, status=Game.Status.PENDING).order_by("id").values_list("id", flat=True))
    start_time = time.perf_counter()
    seq = 0
    for game_id in ids:
        with transaction.atomic():
            game = Game.objects.select_for_update().get(pk=game_id)
            if game.status != Game.Status.PENDING:
                continue
            seats = list(Seat.objects.filter(game=game).order_by("position"))
            ratings = {}
            for seat in seats:
                ratings[seat.player_id], _ = Rating.objects.get_or_create(
                    player_id=seat.player_id, title=title, defaults={"elo": config.initial, "games": 0}
                )
            sides = [[] for _ in range(1 + max(s.side for s in seats))]
            places = [0] * len(sides)
            for seat in seats:
                rating = ratings[seat.player_id]
                sides[seat.side].append((seat.player_id, Standing(rating.elo, rating.games)))
                places[seat.side] = seat.place
            changes = rate_sides(sides, places, game.recommended_sides, None, config)
            seq += 1
            for seat in seats:
                change = changes[seat.player_id]
                rating = ratings[seat.player_id]
                RatingChange.objects.create(
                    seq=seq,
                    title=title,
                    player_id=seat.player_id,
                    game=game,
                    before=change.before,
                    after=change.after,
                    delta=change.delta,
                    k=change.k,
                    games_before=change.games_before,
                    place=seat.place,
                    finished_at=game.finished_at,
                )
                rating.elo = change.after
                rating.games += 1
                rating.last_game_at = max(filter(None, [rating.last_game_at, game.finished_at]))
                rating.save()
            game.status = Game.Status.RATED
            game.rating_seq = seq
            game.save(update_fields=["status", "rating_seq"])
    return len(ids), time.perf_counter() - start_time


def skill_runs(layout: list, count: int, batch: int) -> tuple[int, float, float]:
    """The TrueSkill stage batch by batch, each followed by the bare ``trueskill.rate`` loop over the same games.

    The benchmark games were rated in id order, so the stage takes them in ``layout`` order too.
    """
    env = trueskill.TrueSkill()
    default = env.create_rating()
    beliefs: dict[int, trueskill.Rating] = {}
    clock = Clock()
    stage, bare = [0.0, 0.0], [0.0, 0.0]
    done = 0
    while done < count:
        started = clock.now()
        games = trueskill_stage_run(title=TITLE, limit=min(batch, count - done)).games
        middle = clock.now()
        stage[0] += middle[0] - started[0]
        stage[1] += middle[1] - started[1]
        for table in layout[done : done + games]:
            sides = 1 + max(seat[1] for seat in table)
            groups: list[list] = [[] for _ in range(sides)]
            keys: list[list] = [[] for _ in range(sides)]
            ranks = [0] * sides
            for player_id, side, place in table:
                groups[side].append(beliefs.get(player_id, default))
                keys[side].append(player_id)
                ranks[side] = place
            rated = env.rate([tuple(group) for group in groups], ranks=ranks)
            for members, new in zip(keys, rated, strict=True):
                for player_id, belief in zip(members, new, strict=True):
                    beliefs[player_id] = belief
        spent(clock, middle, bare)
        if not games:
            break
        done += games
    stored = dict(Rating.objects.filter(title=TITLE, ts_mu__isnull=False).values_list("player_id", "ts_mu"))
    # Same maths: trueskill keeps a precision and a precision-adjusted mean inside its Rating, while the stage
    # stores (mu, sigma) and rebuilds the Rating from them, so the two agree to the last bits, not bit for bit.
    assert stored.keys() == beliefs.keys()
    assert all(abs(stored[p] - r.mu) < 1e-9 for p, r in beliefs.items()), "TrueSkill stage differs from the bare loop"
    CPU.update(stage=stage[1], bare=bare[1])
    return done, stage[0], bare[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--naive", type=int, default=2_000, help="games rated the naive way (a sample)")
    parser.add_argument("--skill", type=int, default=10_000, help="games for the TrueSkill comparison")
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--batch", type=int, default=settings.RATING_BATCH_SIZE)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile the Elo runs, print the top entries")
    parser.add_argument("--season", action="store_true", help="run and time the season stage after each batch")
    args = parser.parse_args()
    name = connection.settings_dict["NAME"]
    if connection.vendor != "postgresql" or "bench" not in name:
        sys.exit(f"refusing to run on {connection.vendor} database {name!r}: point DATABASE_URL at a *bench* db")

    say(
        f"setup: {args.games} four-player games (and their twin for the floor) + {args.naive} for the naive path, "
        f"{args.players} players, database {name}, batches of {args.batch}"
    )
    started = time.perf_counter()
    layout, floor_first_id = setup(args.games, args.naive, args.players, args.seed)
    vacuum()
    say(f"  inserted in {time.perf_counter() - started:.1f}s")

    if args.season:
        season_open(title=TITLE, now=EPOCH)
        SEASON["on"] = True
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    # The stage alone: its listeners (the boards, detection) run in other workers and have benchmarks of their own;
    # embedded, detection would run inside each timed batch, over a pool whose seats all share one address.
    with silenced():
        games, floor, batch, base = elo_runs(layout, args.batch, floor_first_id)
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    say(
        f"floor: {games} games in {floor:.2f}s; batch: {games} games in {batch:.2f}s; without reputation: "
        f"{base:.2f}s (alternating batch by batch)"
    )
    reputations = Reputation.objects.count()
    cooling = Reputation.objects.filter(cooldown_until__isnull=False).count()
    say(f"reputation rows: {reputations}, of which {cooling} with a cool-down")
    if args.season:
        season = SEASON["seconds"]
        say(
            f"season stage after each batch: {season:.2f}s, {season / batch:.1%} of the Elo stage's {batch:.2f}s "
            f"(<= 10 %: {'ok' if season <= 0.1 * batch else 'MISSED'})"
        )
    drop_floor()
    check = title_replay(title=TITLE, check=True)
    say(f"rebuild --check after the batch run: {len(check.mismatches)} mismatches over {check.games} games")

    naive_games, naive = naive_run(NAIVE_TITLE)
    say(f"naive: {naive_games} games in {naive:.2f}s")

    with silenced():
        skill_games, stage, bare = skill_runs(layout, args.skill, args.batch)
    say(f"trueskill: {skill_games} games, stage {stage:.2f}s, bare loop {bare:.2f}s (alternating batch by batch)")

    floor_rate, batch_rate, base_rate = games / floor, games / batch, games / base
    naive_rate = naive_games / naive
    stage_rate, bare_rate = skill_games / stage, skill_games / bare

    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    rows = [
        ("raw-SQL floor (writes only)", floor_rate, "", ""),
        ("naive ORM, 1 game/transaction", naive_rate, "", ""),
        (
            "Elo batch (elo_stage_run)",
            batch_rate,
            f"{batch_rate / floor_rate:.2f}x floor (>= 0.8)",
            verdict(batch_rate >= 0.8 * floor_rate),
        ),
        ("", None, f"{batch_rate / naive_rate:.1f}x naive (>= 10)", verdict(batch_rate >= 10 * naive_rate)),
        ("Elo batch without reputation", base_rate, "", ""),
        ("", None, f"{batch / base:.3f}x the time without (<= 1.05)", verdict(batch <= 1.05 * base)),
        ("", None, f"{statistics.median(PAIR_RATIOS):.3f}x per batch pair, median", ""),
        ("bare trueskill.rate loop", bare_rate, "", ""),
        (
            "TrueSkill stage",
            stage_rate,
            f"{stage_rate / bare_rate:.2f}x bare (>= 0.9)",
            verdict(stage_rate >= 0.9 * bare_rate),
        ),
    ]
    # The same ratios in CPU seconds (this process + its PostgreSQL backend): the figures to trust on a busy machine.
    cpu_rows = [
        ("raw-SQL floor (writes only)", games / CPU["floor"], "", ""),
        (
            "Elo batch (elo_stage_run)",
            games / CPU["batch"],
            f"{CPU['floor'] / CPU['batch']:.2f}x floor (>= 0.8)",
            verdict(CPU["floor"] >= 0.8 * CPU["batch"]),
        ),
        ("", None, f"{CPU['batch'] / CPU['base']:.3f}x the CPU without reputation", ""),
        ("bare trueskill.rate loop", skill_games / CPU["bare"], "", ""),
        (
            "TrueSkill stage",
            skill_games / CPU["stage"],
            f"{CPU['bare'] / CPU['stage']:.2f}x bare (>= 0.9)",
            verdict(CPU["bare"] >= 0.9 * CPU["stage"]),
        ),
    ]
    say("")
    say(f"{'path':34} {'games/s':>10}  {'ratio':28} target")
    for label, rate, ratio, mark in rows:
        say(f"{label:34} {'' if rate is None else f'{rate:10,.0f}':>10}  {ratio:28} {mark}")
    say("")
    say(f"{'in CPU (process + backend)':34} {'games/s':>10}  {'ratio':28} target")
    for label, rate, ratio, mark in cpu_rows:
        say(f"{label:34} {'' if rate is None else f'{rate:10,.0f}':>10}  {ratio:28} {mark}")
    say(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
