"""``manage.py rebuild_leaderboards [--game SLUG]``: copy the boards from the database into Redis."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.games import UnknownGame
from infra.errors import NotFound
from leaderboards.board_mode import redis_board_titles
from leaderboards.selectors import board_title
from leaderboards.services import boards_rebuild


class Command(BaseCommand):
    help = "Rebuild the Redis leaderboards from the database (atomic swap; reads keep working meanwhile)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", help="Only this game's board (default: every game that has one).")

    def handle(self, *args, game: str | None = None, **options) -> None:
        titles = redis_board_titles()
        if not titles:
            raise CommandError("REDIS_URL is not set: the boards are read from the database, nothing to rebuild.")
        if game is not None:
            try:
                titles = [board_title(game=game)]
            except UnknownGame:
                raise CommandError(f"No game {game!r}.") from None
            except NotFound as refusal:
                raise CommandError(refusal.message) from None
        for rebuilt in boards_rebuild(titles=titles):
            self.stdout.write(f"{rebuilt.title}: {rebuilt.players} players in {rebuilt.seconds:.2f} s")
