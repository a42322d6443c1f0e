"""Abuse detection and void-and-rebuild on PostgreSQL, run by hand; prints figures against the issue's targets.

    createdb -h 127.0.0.1 -U postgres arena_detection_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_detection_bench .venv/bin/python manage.py migrate
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_detection_bench .venv/bin/python bench/detection_bench.py \
        --history 100000 --history 1000000

It empties the database's games, players, ratings and moderation tables first, so it refuses a database whose name
lacks "bench". For each history size, from scratch:

1. history: ``--history`` rated games (COPY, then the real Elo stage ``elo_stage_run``) over two years, from a
   population that grows with the history (one player per 5 games: a bigger site has more players, not players
   who play more), with households behind one address, cafés many strangers use, and boosting rings;
2. warm-up (untimed): detection over the last 60 days of history, so links and flags exist as in production;
3. the pass: ``--new`` games more (finished in the last day, rated), then one ``detection.detection_run()``: timed.
   Target: the pass at the largest history ≤ 1.5× the pass at the smallest (cost follows the new games);
4. void-and-rebuild: one ring's alt is banned and its games of the biggest title voided, then the worker's
   ``void_rebuild_run`` (rebuild and refunds) is timed, as games replayed per second. Compare it with the
   "raw-SQL floor" line of ``bench/rating_bench.py`` (the writes of an Elo batch alone, no reads, no logic).

``--crowded N`` measures the crowded-address cap instead (docs/moderation.md, "Crowded addresses"): the same
history and the same timed day are built twice from the seed, once with ``N`` of the day's active accounts each on
their own address (the baseline) and once with all ``N`` behind one address (a carrier's NAT). Target: the crowded
pass costs at most 1.5x the baseline pass (without the cap it would make N(N-1)/2 links).
"""

from __future__ import annotations

import argparse
import copy
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
from django.db.models import Max  # noqa: E402
from django.utils import timezone  # noqa: E402

from arena.models import Game, GameServer, Player  # noqa: E402
from bench.game_rows import PENDING_GAMES_COPY, pending_game  # noqa: E402
from infra import announcements  # noqa: E402
from moderation import detection  # noqa: E402
from moderation.models import AuditEntry, DetectionState, Flag  # noqa: E402
from moderation.services.penalties import void_rebuild_run  # noqa: E402
from ratings import elo_batch  # noqa: E402

TITLES = ("wizard", "tokaido", "spades", "railroad_ink", "nile")
WEIGHTS = (4, 2, 2, 1, 1)  # wizard is the busy title: the rebuild's subject
SPAN = timedelta(days=730)


def say(*parts: object) -> None:
    print(*parts, flush=True)


def reset_database() -> None:
    with connection.cursor() as cur:
        cur.execute(
            "TRUNCATE moderation_flagfeeder, moderation_flag, moderation_link, moderation_report_accused, "
            "moderation_report, moderation_auditentry_players, moderation_auditentry_games, "
            "moderation_auditentry_flags, moderation_auditentry_reports, moderation_auditentry, "
            "moderation_banterm, moderation_detectionstate, ratings_ratingchange, ratings_rating, "
            "ratings_ratingstage, "
            "arena_seat, arena_game, arena_player, arena_gameserver RESTART IDENTITY CASCADE"
        )


class Population:
    """Player ids with their usual address and device hashes; households, cafés and rings among them."""

    def __init__(self, rnd: random.Random, count: int, first_id: int):
        self.rnd = rnd
        self.ids = list(range(first_id, first_id + count))
        self.ip = {p: f"ip-{p}" for p in self.ids}
        self.device = {p: f"dev-{p}" for p in self.ids}
        self.cafe: dict[int, str] = {}
        self.rings: list[tuple[int, list[int]]] = []
        pool = self.ids[:]
        rnd.shuffle(pool)
        households = pool[: count // 20]
        for start in range(0, len(households) - 2, 3):
            for p in households[start : start + 3]:
                self.ip[p] = f"home-{households[start]}"
        regulars = pool[count // 20 : count // 10]
        for start in range(0, len(regulars), 50):
            for p in regulars[start : start + 50]:
                self.cafe[p] = f"cafe-{regulars[start]}"
        ringers = pool[count // 10 : count // 10 + max(3, count // 100)]
        for start in range(0, len(ringers) - 2, 3):
            main, *alts = ringers[start : start + 3]
            for alt in alts:
                self.device[alt] = self.device[main]
            self.rings.append((main, alts))
        self.alts = {a for _, alts in self.rings for a in alts}
        self.honest = [p for p in self.ids if p not in self.alts]
        self.nat: set[int] = set()  # accounts behind one carrier's address (--crowded), on the timed day only

    def seat_hashes(self, p: int) -> tuple[str, str]:
        r = self.rnd.random()
        if p in self.nat:
            return "carrier-nat", self.device[p]
        if p in self.cafe and r < 0.2:
            return self.cafe[p], self.device[p]
        if r > 0.9:
            return f"mobile-{p}", self.device[p]
        return self.ip[p], self.device[p]


def make_games(
    pop: Population, count: int, first_id: int, server_id: int, start: datetime, end: datetime, chunk: int = 50_000
) -> None:
    """COPY ``count`` pending games with seats, ids from ``first_id``, finishes spread over [start, end)."""
    step = (end - start) / max(count, 1)
    for offset in range(0, count, chunk):
        _copy_games(pop, range(offset, min(offset + chunk, count)), first_id, server_id, start, step)
    with connection.cursor() as cur:
        cur.execute("SELECT setval(pg_get_serial_sequence('arena_game', 'id'), (SELECT max(id) FROM arena_game))")


def _copy_games(
    pop: Population, numbers: range, first_id: int, server_id: int, start: datetime, step: timedelta
) -> None:
    rnd = pop.rnd
    ring_every = 25  # one game in 25 is a ring's
    seats_rows = []
    with connection.cursor() as cur:
        with cur.cursor.copy(PENDING_GAMES_COPY) as games:
            for n in numbers:
                game_id = first_id + n
                title = rnd.choices(TITLES, WEIGHTS)[0]
                size = 4 if title == "spades" else rnd.randint(2, 4)
                if n % ring_every == 0 and pop.rings:
                    main, alts = rnd.choice(pop.rings)
                    table = [main, *alts[: size - 1]]
                    table += rnd.sample(pop.honest, size - len(table))
                    order = table  # the main first, alts below
                else:
                    order = rnd.sample(pop.honest, size)
                finished = start + step * n
                games.write_row(pending_game(game_id, server_id, f"b-{game_id}", title, finished))
                positions = list(range(size))
                rnd.shuffle(positions)
                for place, (player, pos) in enumerate(zip(order, positions, strict=True), start=1):
                    ip, device = pop.seat_hashes(player)
                    seats_rows.append(
                        (game_id, player, pos, 100 - place, False, None, place - 1, place, "{}", ip, device)
                    )
        with cur.cursor.copy(
            "COPY arena_seat (game_id, player_id, position, score, quit, team, side, place, fields, "
            "ip_hash, device_hash) FROM STDIN"
        ) as seats:
            for row in seats_rows:
                seats.write_row(row)


def add_players(count: int, first_id: int) -> None:
    now = datetime.now(UTC) - SPAN
    with (
        connection.cursor() as cur,
        cur.cursor.copy("COPY arena_player (id, handle, status, created_at) FROM STDIN") as copy,
    ):
        for p in range(first_id, first_id + count):
            copy.write_row((p, f"b{p}", "active", now))
    with connection.cursor() as cur:
        cur.execute("SELECT setval(pg_get_serial_sequence('arena_player', 'id'), (SELECT max(id) FROM arena_player))")


def rate_everything() -> float:
    started = time.perf_counter()
    for title in TITLES:
        while elo_batch.elo_stage_run(title=title).games:
            pass
    return time.perf_counter() - started


def vacuum() -> None:
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE")


def build(history: int, new: int, seed: int) -> tuple[Population, int, datetime]:
    """The history, rated; detection warmed up over its last 60 days and caught up with ``new`` games more."""
    rnd = random.Random(seed)
    reset_database()
    server = GameServer.objects.create(name="bench", key_prefix="bench", key_hash="bench")
    now = timezone.now()
    players = max(history // 5, 1000)
    add_players(players, 1)
    pop = Population(rnd, players, 1)
    started = time.perf_counter()
    make_games(pop, history, 1, server.pk, now - SPAN, now - timedelta(days=1))
    rated = rate_everything()
    vacuum()
    say(
        f"  history: {history} games, {players} players, {len(pop.rings)} rings: inserted and rated in "
        f"{time.perf_counter() - started:.1f}s (Elo stage {history / rated:,.0f} games/s)"
    )
    # Warm-up: production would have run detection all along; the last 60 days are what can still matter.
    first_recent = Game.objects.filter(finished_at__gte=now - timedelta(days=60)).order_by("pk").first().pk
    DetectionState.objects.update_or_create(name="default", defaults={"last_game_id": first_recent - 1})
    started = time.perf_counter()
    warm = detection.detection_run_all(now=now)
    say(
        f"  warm-up: {warm.games} games of the last 60 days in {time.perf_counter() - started:.1f}s, "
        f"{Flag.objects.count()} flags"
    )
    # A first day of new games from the whole population (untimed): every open flag is as fresh as in production.
    make_games(pop, new, history + 1, server.pk, now - timedelta(days=2), now - timedelta(days=1))
    rate_everything()
    started = time.perf_counter()
    caught = detection.detection_run_all(now=now)
    say(f"  catch-up: {caught.games} games of the whole population in {time.perf_counter() - started:.1f}s")
    return pop, server.pk, now


def timed_day(
    pop: Population, server_id: int, now: datetime, new: int, active: int, behind_one: int = 0
) -> tuple[detection.DetectionResult, float]:
    """The timed day: ``new`` games (COPY, then rated) in the last day, then one detection pass, timed.

    The same community of ``active`` players (and their share of the rings) whatever the history, so two passes
    get the same work and differ only in how much history lies behind it; ``behind_one`` of them all on one
    carrier's address (``--crowded``).
    """
    today = copy.copy(pop)
    today.honest = pop.honest[:active]
    today.rings = pop.rings[: max(1, active // 300)]
    today.nat = set(today.honest[:behind_one])
    first = (Game.objects.aggregate(m=Max("pk"))["m"] or 0) + 1
    make_games(today, new, first, server_id, now - timedelta(days=1), now - timedelta(minutes=1))
    rate_everything()
    vacuum()
    started = time.perf_counter()
    result = detection.detection_run_all(now=now)
    return result, time.perf_counter() - started


def crowded_run(history: int, new: int, seed: int, active: int, accounts: int, behind_one: bool) -> dict[str, float]:
    """The timed day with ``accounts`` of its active players each on their own address, or all behind one."""
    announcements._subscribers.clear()
    pop, server_id, now = build(history, new, seed)
    result, elapsed = timed_day(pop, server_id, now, new, active, behind_one=accounts if behind_one else 0)
    nat_accounts = (
        Game.objects.filter(seats__ip_hash="carrier-nat").values("seats__player_id").distinct().count()
        if behind_one
        else 0
    )
    say(
        f"  pass ({'behind one address' if behind_one else 'own addresses'}): {result.games} new games in "
        f"{elapsed:.2f}s, {nat_accounts} accounts on the crowded address: {result.links_created} links new, "
        f"{result.links_updated} widened, {result.pairs_evaluated} pairs, {result.suspect_pairs} suspect, flags "
        f"{result.flags_created} new / {result.flags_updated} updated"
    )
    return {"pass": elapsed, "links": result.links_created, "nat_accounts": nat_accounts}


def crowded_main(args: argparse.Namespace) -> None:
    size = (args.history or [20_000])[0]
    say(
        f"crowded address: history {size:,}, {args.new:,} new games, {args.crowded:,} accounts, "
        f"database {connection.settings_dict['NAME']}"
    )
    base = crowded_run(size, args.new, args.seed, args.active, args.crowded, behind_one=False)
    crowded = crowded_run(size, args.new, args.seed, args.active, args.crowded, behind_one=True)
    ratio = crowded["pass"] / base["pass"]
    say("")
    say(f"{'day':>22} {'pass (s)':>9} {'links new':>10} {'on the address':>15}")
    say(f"{'own addresses':>22} {base['pass']:>9.2f} {base['links']:>10,} {'-':>15}")
    say(f"{'behind one address':>22} {crowded['pass']:>9.2f} {crowded['links']:>10,} {crowded['nat_accounts']:>15,}")
    say(f"crowded / baseline = {ratio:.2f}x (target <= 1.5): {'ok' if ratio <= 1.5 else 'MISSED'}")


def run(history: int, new: int, seed: int, active: int, reuse: bool, rebuild: bool) -> dict[str, float]:
    # Each stage is timed alone: no listener (boards, detection after every batch) runs while the history is rated.
    announcements._subscribers.clear()
    if reuse and Game.objects.count() >= history:
        rnd = random.Random(seed)
        pop = Population(rnd, Player.objects.count(), 1)
        server_id, now = GameServer.objects.get(name="bench").pk, timezone.now()
        say(f"  reusing the database's {Game.objects.count():,} games, {len(pop.ids):,} players")
    else:
        pop, server_id, now = build(history, new, seed)
    result, elapsed = timed_day(pop, server_id, now, new, active)
    say(
        f"  pass: {result.games} new games in {elapsed:.2f}s ({result.games / elapsed:,.0f} games/s): "
        f"{result.links_created} links new, {result.links_updated} widened, {result.pairs_evaluated} pairs, "
        f"{result.suspect_pairs} suspect, flags {result.flags_created} new / {result.flags_updated} updated"
    )
    out = {"pass": elapsed, "games": result.games, "rebuild": float("nan"), "rebuild_games": 0}
    if not rebuild:
        return out
    # Void-and-rebuild: ban one ring's first alt, void its games of the busy title, rebuild as the worker does.
    _main, alts = pop.rings[-1]
    Player.objects.filter(pk=alts[0]).update(status="banned")
    voided = list(
        Game.objects.filter(title="wizard", seats__player_id=alts[0], status="rated").values_list("pk", flat=True)
    )
    Game.objects.filter(pk__in=voided).update(status="void")
    entry = AuditEntry.objects.create(action=AuditEntry.Action.VOID_GAMES, details={"pending_titles": ["wizard"]})
    title_games = Game.objects.filter(title="wizard", status="rated").count()
    started = time.perf_counter()
    refunds = void_rebuild_run(entry_id=entry.pk, title="wizard")
    took = time.perf_counter() - started
    say(
        f"  void {len(voided)} games and rebuild wizard ({title_games} games): {took:.2f}s "
        f"({title_games / took:,.0f} games/s), {len(refunds)} players' ratings changed"
    )
    out.update(rebuild=took, rebuild_games=title_games)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--history", type=int, action="append", help="history sizes (repeat), smallest first")
    parser.add_argument("--new", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--active", type=int, default=20_000, help="players active on the timed day")
    parser.add_argument(
        "--reuse", action="store_true", help="keep a database already holding the history (one size per database then)"
    )
    parser.add_argument("--no-rebuild", action="store_true", help="skip the void-and-rebuild step")
    parser.add_argument(
        "--crowded",
        type=int,
        default=0,
        help="measure the crowded-address cap: this many active accounts behind one address",
    )
    args = parser.parse_args()
    sizes = sorted(args.history or [100_000, 1_000_000])
    name = connection.settings_dict["NAME"]
    if connection.vendor != "postgresql" or "bench" not in name:
        sys.exit(f"refusing to run on {connection.vendor} database {name!r}: point DATABASE_URL at a *bench* db")
    if args.crowded:
        crowded_main(args)
        return
    results = {}
    for size in sizes:
        say(f"history {size:,}, {args.new:,} new games, database {name}")
        results[size] = run(size, args.new, args.seed, args.active, args.reuse, not args.no_rebuild)
    small, large = results[sizes[0]], results[sizes[-1]]
    ratio = large["pass"] / small["pass"]
    say("")
    say(f"{'history':>10} {'pass (s)':>9} {'new games/s':>12} {'rebuild (s)':>12} {'rebuild games/s':>16}")
    for size in sizes:
        r = results[size]
        say(
            f"{size:>10,} {r['pass']:>9.2f} {r['games'] / r['pass']:>12,.0f} {r['rebuild']:>12.2f} "
            f"{r['rebuild_games'] / r['rebuild']:>16,.0f}"
        )
    say(
        f"pass at {sizes[-1]:,} / pass at {sizes[0]:,} = {ratio:.2f}x (target <= 1.5): "
        f"{'ok' if ratio <= 1.5 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
