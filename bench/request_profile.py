"""Where a request's milliseconds go: each layer of the request path taken out in turn, in one process.

Run by hand:  .venv/bin/python -m bench.request_profile [--requests 200]
              DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_x REDIS_URL=redis://127.0.0.1:6379/N \\
                  .venv/bin/python -m bench.request_profile   (the production shape's PostgreSQL and Redis)

A scratch test database (created and dropped, as the test runner does) gets one game server and ``--games``
recorded Wizard games; then three requests (a single game POST, the top-50 board, a player page) are timed through
Django's test client, ``--requests`` each, first with the whole request path and then with one layer removed at a
time: each middleware, the throttle, and the renderer swapped for DRF's own. A layer's share is the mean time with
it minus the mean time without it, in the same run (the cases take turns, so a neighbour's load weighs on all).
A share within the run's noise (about 0.02 ms here) reads as nothing. Figures: docs/testing.md, the request path.
``--clock cpu`` times this process's CPU instead of the wall clock: on a machine other work keeps busy, the wall
clock mostly measures waiting for a core, while the CPU a request's Python takes is what one GIL serialises.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")  # development mode unless DEBUG is set
os.environ.setdefault("LOG_LEVEL", "WARNING")

Cases = dict[str, Callable[[], object]]
# variant -> the settings it overrides; variant -> case -> the mean of each round, in ms.
Variants = dict[str, dict]
Means = dict[str, dict[str, list[float]]]


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="timed requests per case and variant")
    parser.add_argument("--games", type=int, default=300, help="games recorded before the timing")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="cpu: this process's CPU time (time.process_time), which a loaded machine does not "
        "inflate; the database's and Redis's own work is then left out, their round trips not",
    )
    return parser.parse_args()


class Tables:
    """Wizard games at tables of four out of 300 players, and who has sat: the player page asks for one of them."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.counter = iter(range(10**9))
        self.seated: list[int] = []

    def game(self) -> dict:
        seats = self.rng.sample(range(300), 4)
        self.seated.extend(seats)
        return {
            "table_id": f"P-{next(self.counter)}",
            "game": "wizard",
            "players": [
                {"player": f"p{x}", "ip": f"203.0.113.{x % 250}", "score": self.rng.randint(0, 300)} for x in seats
            ],
        }


def seeded_cases(games: int) -> Cases:
    """One game server and ``games`` recorded games in the scratch database; the three requests timed over them."""
    from django.test import Client

    from arena.models import SCOPES
    from arena.servers import game_server_create

    key = game_server_create(name="profile", scopes=SCOPES).key
    rng = random.Random(5)
    auth = {"HTTP_AUTHORIZATION": f"Api-Key {key}"}
    client = Client()
    tables = Tables(rng)
    for _ in range(games):
        assert client.post("/api/v1/games/", tables.game(), content_type="application/json", **auth).status_code in (
            200,
            201,
        )
    # As a gunicorn worker does once its code is loaded (config/wsgi.py): the startup heap out of the collector's
    # walks, so what is timed is what a worker pays.
    from infra.gc_pause import startup_heap_freeze

    startup_heap_freeze()
    return {
        "single game POST": lambda: client.post(
            "/api/v1/games/", tables.game(), content_type="application/json", **auth
        ),
        "top-50 board": lambda: client.get("/api/v1/leaderboards/wizard/?limit=50"),
        "player page": lambda: client.get(f"/api/v1/players/p{rng.choice(tables.seated)}/"),
    }


def layer_variants() -> Variants:
    """The whole path, then each middleware, the throttle and the renderer taken out in turn."""
    from django.conf import settings

    full = list(settings.MIDDLEWARE)
    variants: Variants = {"whole path": {}}
    for name in full:
        variants[f"- {name.rsplit('.', 1)[1]}"] = {"MIDDLEWARE": [m for m in full if m != name]}
    rest = settings.REST_FRAMEWORK
    variants["- throttles"] = {
        "REST_FRAMEWORK": {**rest, "DEFAULT_THROTTLE_CLASSES": [], "DEFAULT_THROTTLE_RATES": {"public": None}}
    }
    variants["renderer: DRF's json"] = {
        "REST_FRAMEWORK": {**rest, "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]}
    }
    return variants


def rounds_timed(cases: Cases, variants: Variants, requests: int, clock: Callable[[], float]) -> Means:
    from django.test import override_settings

    means: Means = {v: {c: [] for c in cases} for v in variants}
    for _ in range(3):  # rounds: every variant in each, so slow spells weigh on all
        for variant, overrides in variants.items():
            with override_settings(**overrides):
                for case, call in cases.items():
                    call()  # warm
                    samples = []
                    for _ in range(requests // 3):
                        started = clock()
                        call()
                        samples.append(clock() - started)
                    means[variant][case].append(statistics.fmean(samples) * 1000)
    return means


def shares_print(args: argparse.Namespace, cases: list[str], means: Means) -> None:
    """Each variant's median of the rounds' means, and beside it the share of the layer it takes out."""
    shape = "PostgreSQL + Redis" if "postgres" in os.environ.get("DATABASE_URL", "") else "embedded (SQLite)"
    print(
        f"\n{shape}; {args.clock} clock; mean ms per request ({args.requests} per case and variant); "
        "a layer's share = whole - without"
    )
    print(f"{'variant':40}" + "".join(f"{c:>22}" for c in cases))
    whole = {c: statistics.median(means["whole path"][c]) for c in cases}
    for variant in means:
        cells = []
        for case in cases:
            value = statistics.median(means[variant][case])
            cells.append(f"{value:10.2f}" + ("" if variant == "whole path" else f" ({whole[case] - value:+6.2f})"))
        print(f"{variant:40}" + "".join(f"{cell:>22}" for cell in cells))


def run(args: argparse.Namespace) -> None:
    """On a scratch test database (created and dropped, as the test runner does), with DEBUG off as in a production
    worker, so the timing leaves out what only development mode does."""
    import django

    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.DEBUG = False
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0)
    try:
        cases = seeded_cases(args.games)
        means = rounds_timed(cases, layer_variants(), args.requests, clock)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    shares_print(args, list(cases), means)


def main() -> None:
    run(arguments())


if __name__ == "__main__":
    main()
