"""The Elo stage with the rating ledger against the same stage without it (issue 30 §3: at most 5 % slower), on
PostgreSQL, in one run; run by hand:

    createdb -h 127.0.0.1 -U postgres arena_ledger_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_ledger_bench .venv/bin/python manage.py migrate
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_ledger_bench .venv/bin/python bench/ledger_bench.py

The games are ``bench/rating_games.py``'s (four-player games, 5 % of them ending with a quit), inserted twice: the
real title is rated with the ledger (``ratings.elo_batch.ledger_record``), its twin with that call switched off,
batch by batch in turn (which goes first alternates), so both see the same machine load and table sizes.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Production settings (no DEBUG: no query log in memory) with throwaway secrets, as bench/leaderboard_bench.py.
os.environ.setdefault("SECRET_KEY", secrets.token_hex(32))
os.environ.setdefault("IP_HASH_KEY", secrets.token_hex(32))
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402

from bench import rating_games  # noqa: E402
from bench.harness import say  # noqa: E402
from infra.announcements import silenced  # noqa: E402
from ratings import elo_batch  # noqa: E402
from ratings.elo_batch import elo_stage_run  # noqa: E402
from ratings.models import LedgerDay  # noqa: E402

# Seconds spent inside the ledger's own call (classification and its one statement), over the real runs.
INSIDE = [0.0]


def timed(title: str, batch: int, *, ledger: bool) -> tuple[float, int]:
    real = elo_batch.ledger_record

    def measured(**kwargs: object) -> None:
        started = time.perf_counter()
        real(**kwargs)  # type: ignore[arg-type]
        INSIDE[0] += time.perf_counter() - started

    elo_batch.ledger_record = measured if ledger else (lambda **kwargs: None)
    try:
        started = time.perf_counter()
        games = elo_stage_run(title=title, limit=batch).games
        return time.perf_counter() - started, games
    finally:
        elo_batch.ledger_record = real


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=4_000)
    parser.add_argument("--batch", type=int, default=settings.RATING_BATCH_SIZE)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    name = connection.settings_dict["NAME"]
    if connection.vendor != "postgresql" or "bench" not in name:
        sys.exit(f"refusing to run on {connection.vendor} database {name!r}: point DATABASE_URL at a *bench* db")
    with connection.cursor() as cur:
        cur.execute("TRUNCATE ratings_ledgerday")
    rating_games.setup(args.games, 10, args.players, args.seed)
    rating_games.vacuum()
    with_time = without_time = 0.0
    ratios = []
    index = 0
    with silenced():
        while True:
            first_with = index % 2 == 0
            if first_with:
                a, done = timed(rating_games.TITLE, args.batch, ledger=True)
                b, twin = timed(rating_games.BASE_TITLE, args.batch, ledger=False)
            else:
                b, twin = timed(rating_games.BASE_TITLE, args.batch, ledger=False)
                a, done = timed(rating_games.TITLE, args.batch, ledger=True)
            assert done == twin
            if not done:
                break
            with_time += a
            without_time += b
            ratios.append(a / b)
            index += 1
    rows = LedgerDay.objects.filter(title=rating_games.TITLE).count()
    say(
        f"{args.games} games in {index} batches of {args.batch}: with the ledger {with_time:.2f}s, "
        f"without {without_time:.2f}s; {rows} ledger rows"
    )
    say(
        f"with / without: {with_time / without_time:.3f}x in total (<= 1.05 "
        f"{'ok' if with_time <= 1.05 * without_time else 'MISSED'}), "
        f"{statistics.median(ratios):.3f}x per batch pair, median"
    )
    say(
        f"inside the ledger call: {INSIDE[0]:.3f}s, {100 * INSIDE[0] / with_time:.2f} % of the stage's "
        f"time with it (the steadier figure on a shared machine)"
    )


if __name__ == "__main__":
    main()
