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
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402

from bench import rating_stages  # noqa: E402
from bench.harness import say  # noqa: E402
from bench.rating_floor import drop_floor  # noqa: E402
from bench.rating_games import EPOCH, NAIVE_TITLE, TITLE, setup, vacuum  # noqa: E402
from bench.rating_report import cpu_rows, report_print, wall_rows  # noqa: E402
from bench.rating_stages import elo_runs, naive_run, skill_runs  # noqa: E402
from infra.announcements import silenced  # noqa: E402
from ratings.models import Reputation  # noqa: E402
from ratings.rebuild import title_replay  # noqa: E402
from seasons.services import season_open  # noqa: E402


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--naive", type=int, default=2_000, help="games rated the naive way (a sample)")
    parser.add_argument("--skill", type=int, default=10_000, help="games for the TrueSkill comparison")
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--batch", type=int, default=settings.RATING_BATCH_SIZE)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile the Elo runs, print the top entries")
    parser.add_argument("--season", action="store_true", help="run and time the season stage after each batch")
    return parser.parse_args()


def elo_timed(args: argparse.Namespace, layout: list, floor_first_id: int) -> tuple[int, float, float, float]:
    """The floor, the Elo stage and the stage without reputation, under cProfile if ``--profile`` asks."""
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    # The stage alone: its listeners (the boards, detection) run in other workers and have benchmarks of their own;
    # embedded, detection would run inside each timed batch, over a pool whose seats all share one address.
    with silenced():
        figures = elo_runs(layout, args.batch, floor_first_id)
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    return figures


def run(args: argparse.Namespace, name: str) -> None:
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
        rating_stages.SEASON["on"] = True
    games, floor, batch, base = elo_timed(args, layout, floor_first_id)
    say(
        f"floor: {games} games in {floor:.2f}s; batch: {games} games in {batch:.2f}s; without reputation: "
        f"{base:.2f}s (alternating batch by batch)"
    )
    reputations = Reputation.objects.count()
    cooling = Reputation.objects.filter(cooldown_until__isnull=False).count()
    say(f"reputation rows: {reputations}, of which {cooling} with a cool-down")
    if args.season:
        season = rating_stages.SEASON["seconds"]
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

    wall = wall_rows(
        games=games,
        floor=floor,
        batch=batch,
        base=base,
        naive=(naive_games, naive),
        skill=(skill_games, stage, bare),
        pair_ratios=rating_stages.PAIR_RATIOS,
    )
    report_print(wall, cpu_rows(games=games, skill_games=skill_games, cpu=rating_stages.CPU))


def main() -> None:
    args = arguments()
    name = connection.settings_dict["NAME"]
    if connection.vendor != "postgresql" or "bench" not in name:
        sys.exit(f"refusing to run on {connection.vendor} database {name!r}: point DATABASE_URL at a *bench* db")
    run(args, name)


if __name__ == "__main__":
    main()
