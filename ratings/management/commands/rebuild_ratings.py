"""``manage.py rebuild_ratings [--game SLUG] [--check]``: recompute ratings from the stored games alone.

The replay applies the same rules to the same games and resets in the same order as the rating stages did, so
on an untouched database it reproduces every rating and history row bit for bit; ``--check`` proves it without
writing. After voided games it is how victims get their points back.
"""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.games import GAMES
from ratings.rebuild import title_replay, titles_rated

# Differences listed in full by --check before the rest are only counted.
SHOW_MISMATCHES = 20


class Command(BaseCommand):
    help = "Rebuild (or with --check, verify) every rating of one game or of all games from the stored games."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", metavar="SLUG", help="Only this game (default: every game with ratings).")
        parser.add_argument(
            "--check",
            action="store_true",
            help="Recompute and compare with the stored ratings and history; write nothing.",
        )

    def handle(self, *args: object, game: str | None, check: bool, **options: object) -> None:
        if game is not None and game not in GAMES:
            raise CommandError(f"Unknown game {game!r}; one of: {', '.join(sorted(GAMES))}.")
        titles = [game] if game else titles_rated()
        if not titles:
            self.stdout.write("Nothing rated yet: nothing to rebuild.")
            return
        failed = False
        for title in titles:
            started = time.monotonic()
            self.stdout.write(f"{title}: {'checking' if check else 'rebuilding'}...")
            result = title_replay(title=title, progress=self._progress(title), check=check)
            seconds = time.monotonic() - started
            summary = (
                f"{title}: {result.games} games, {result.resets} resets, {result.players} players, "
                f"{result.trueskill_games} with TrueSkill, in {seconds:.1f}s"
            )
            if not check:
                self.stdout.write(self.style.SUCCESS(f"{summary}: rebuilt."))
                continue
            if not result.mismatches:
                self.stdout.write(self.style.SUCCESS(f"{summary}: identical to the stored ratings."))
                continue
            failed = True
            self.stdout.write(self.style.ERROR(f"{summary}: {len(result.mismatches)} differences."))
            for mismatch in result.mismatches[:SHOW_MISMATCHES]:
                self.stdout.write(
                    f"  {mismatch.what} {mismatch.key}: stored {mismatch.stored!r}, replay {mismatch.computed!r}"
                )
        if failed:
            raise CommandError("The stored ratings differ from a replay of the games (see above).")

    def _progress(self, title: str):
        def report(done: int, total: int) -> None:
            percent = 100 * done // total if total else 100
            self.stdout.write(f"  {title}: {done}/{total} ({percent}%)")

        return report
