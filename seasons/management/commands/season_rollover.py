"""``manage.py season_rollover GAME [--season N] [--reason TEXT] [--actor NAME]``: an operator closes the open
season now and opens the next (docs/seasons.md "The calendar"), audited (``SeasonRollover``). With ``--season`` a
retried command closes nothing the second time."""

from __future__ import annotations

import getpass

from django.core.management.base import BaseCommand, CommandError

from arena.games import UnknownGame
from infra.errors import ArenaError
from seasons.services import season_rollover, season_title


class Command(BaseCommand):
    help = "Close a game's open season now (audited) and open the next one."

    def add_arguments(self, parser) -> None:
        parser.add_argument("game")
        parser.add_argument("--season", type=int, default=None, help="Close only this season number (safe retry).")
        parser.add_argument("--reason", default="", help="Written into the audit row.")
        parser.add_argument("--actor", default=None, help="Who (default: the operating system user).")

    def handle(self, *args, **options) -> None:
        try:
            title = season_title(game=options["game"])
            closed = season_rollover(
                title=title,
                actor=options["actor"] or getpass.getuser(),
                reason=options["reason"],
                number=options["season"],
            )
        except UnknownGame as exc:
            raise CommandError(f"unknown game {exc}") from exc
        except ArenaError as exc:
            raise CommandError(str(exc)) from exc
        if closed is None:
            self.stdout.write(f"{title}: season {options['season']} is already closed; nothing done.")
        else:
            self.stdout.write(f"{title}: season {closed.number} closed, season {closed.number + 1} open.")
