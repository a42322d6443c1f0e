"""``manage.py detect_abuse``: one detection pass over what is new, then every open flag as a JSON line.

stdout carries only the flags (``{"flag", "game", "beneficiary", "feeders", "score"}``, highest score first), so
it can be piped; progress and the summary go to stderr.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from moderation import detection


class Command(BaseCommand):
    help = "Run multiple-account detection over the games since the last pass; print every open flag (JSON lines)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--from-scratch",
            action="store_true",
            help="Forget the watermark and rating cursors first and look at every game again.",
        )
        parser.add_argument(
            "--batch",
            type=int,
            default=None,
            help="Games per pass (one transaction each; default settings.DETECTION_BATCH).",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["batch"] is not None and opts["batch"] < 1:
            raise CommandError("--batch must be at least 1 (a negative one would crash the pass's slice).")
        if opts["from_scratch"]:
            detection.watermark_reset()
        result = detection.detection_run_all(batch=opts["batch"], progress=lambda message: self.stderr.write(message))
        self.stderr.write(
            f"looked at {result.games} new games (watermark {result.watermark}) and {result.rated} newly rated: "
            f"{result.links_created} links new, "
            f"{result.links_updated} widened, {result.pairs_evaluated} pairs evaluated, {result.suspect_pairs} "
            f"suspect; flags {result.flags_created} raised, {result.flags_updated} updated, "
            f"{result.flags_skipped} left dismissed, {result.flags_withdrawn} withdrawn"
        )
        for flag in detection.flags_open():
            self.stdout.write(json.dumps(flag))
