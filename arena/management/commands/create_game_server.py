"""``manage.py create_game_server NAME [--scope ...]``: prints the new key once; Arena keeps only its hash.

Scopes default to ``games matchmaking reports``; ``preferences`` is given only on request (docs/security.md).
"""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.models import DEFAULT_SCOPES, SCOPES, GameServer
from arena.servers import game_server_create


class Command(BaseCommand):
    help = "Create a game server and print its API key (shown only this once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument(
            "--scope",
            nargs="+",
            choices=SCOPES,
            default=list(DEFAULT_SCOPES),
            dest="scopes",
            help=f"What the key may do (default: {' '.join(DEFAULT_SCOPES)}).",
        )
        parser.add_argument("--quiet-key", action="store_true", help="Print only the key, for scripts.")

    def handle(self, *args: object, name: str, scopes: list[str], quiet_key: bool, **options: object) -> None:
        if GameServer.objects.filter(name=name).exists():
            raise CommandError(f"A game server named {name!r} exists already.")
        issued = game_server_create(name=name, scopes=scopes)
        if quiet_key:
            self.stdout.write(issued.key)
            return
        self.stdout.write(
            f"Game server {name!r} created with scopes {issued.server.scopes}. "
            "Its API key (shown only now, store it safely):"
        )
        self.stdout.write(issued.key)
