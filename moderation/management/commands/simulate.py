"""``manage.py simulate``: build a population (moderation.simulation) and post its games through the real API.

In-process by default (DRF's test client against this project's URLs, with a game server created for the run),
or over HTTP to a running server with ``--url`` and ``--key``. Progress goes to stderr; the planted truth is
printed as one JSON document on stdout at the end.
"""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from moderation.simulation import Mix, Simulation


class Command(BaseCommand):
    help = "Simulate honest players, households, cafés and planted boosting rings; post their games via the API."

    def add_arguments(self, parser: CommandParser) -> None:
        mix = Mix()
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--players", type=int, default=mix.players, help="Honest players.")
        parser.add_argument("--households", type=int, default=mix.households)
        parser.add_argument("--cafes", type=int, default=mix.cafes)
        parser.add_argument("--cafe-users", type=int, default=mix.cafe_users)
        parser.add_argument("--rings", type=int, default=mix.rings)
        parser.add_argument("--games", type=int, default=mix.games, help="Honest games (rings' come on top).")
        parser.add_argument("--days", type=int, default=mix.days, help="Spread the games over the last N days.")
        parser.add_argument(
            "--stranger-share",
            type=float,
            default=mix.stranger_share,
            help="Share of alts that also play a few games with strangers.",
        )
        parser.add_argument("--prefix", default="sim", help="Handle prefix (handles are <prefix><seed>_...).")
        parser.add_argument("--batch", type=int, default=200, help="Games per POST /api/v1/games/batch/.")
        parser.add_argument("--url", help="Post to a running server (e.g. http://127.0.0.1:8000) instead.")
        parser.add_argument("--key", help="The game server's API key (with --url).")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        mix = Mix(
            players=opts["players"],
            households=opts["households"],
            cafes=opts["cafes"],
            cafe_users=opts["cafe_users"],
            rings=opts["rings"],
            games=opts["games"],
            days=opts["days"],
            stranger_share=opts["stranger_share"],
        )
        sim = Simulation(mix, seed=opts["seed"], prefix=opts["prefix"], now=timezone.now())
        bodies = sim.build()
        post = self._http(opts["url"], opts["key"]) if opts["url"] else self._in_process(opts)
        size = max(1, min(opts["batch"], settings.GAMES_BATCH_MAX))
        statuses: dict[str, int] = {}
        started = time.monotonic()
        for start in range(0, len(bodies), size):
            for result in post(bodies[start : start + size]):
                key = str(result["status_code"])
                statuses[key] = statuses.get(key, 0) + 1
            if not opts["no_progress"]:
                self.stderr.write(_bar(min(start + size, len(bodies)), len(bodies), started), ending="")
                self.stderr.flush()
        if not opts["no_progress"]:
            self.stderr.write("")
        truth = sim.truth()
        truth["posted"] = statuses
        self.stderr.write(f"posted {len(bodies)} games in {time.monotonic() - started:.1f}s: {statuses}")
        self.stdout.write(json.dumps(truth))

    @staticmethod
    def _in_process(opts: dict[str, Any]):
        from rest_framework.test import APIClient

        from arena.servers import game_server_create

        issued = game_server_create(name=f"simulate-{opts['prefix']}{opts['seed']}-{timezone.now():%Y%m%d%H%M%S%f}")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Api-Key {issued.key}")

        def post(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
            response = client.post("/api/v1/games/batch/", {"games": batch}, format="json")
            if response.status_code != 200:
                raise SystemExit(f"batch refused: {response.status_code} {response.content[:500]!r}")
            return response.json()["results"]

        return post

    @staticmethod
    def _http(url: str, key: str | None):
        if not key:
            raise SystemExit("--url needs --key (a game server's API key: manage.py create_game_server NAME)")

        def post(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
            request = urllib.request.Request(
                url.rstrip("/") + "/api/v1/games/batch/",
                data=json.dumps({"games": batch}).encode(),
                headers={"Authorization": f"Api-Key {key}", "Content-Type": "application/json"},
                method="POST",
            )
            with urllib.request.urlopen(request, timeout=120) as response:
                return json.loads(response.read())["results"]

        return post


def _bar(done: int, total: int, started: float, width: int = 40) -> str:
    filled = width * done // max(total, 1)
    rate = done / max(time.monotonic() - started, 1e-6)
    return f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games {rate:.0f}/s"
