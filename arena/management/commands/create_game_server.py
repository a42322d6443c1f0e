"""``manage.py create_game_server NAME``: prints the new key once; Arena keeps only its hash."""
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.models import GameServer
from arena.servers import game_server_create


class Command(BaseCommand):
    help = "Create a game server and print its API key (shown only this once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--quiet-key", action="store_true", help="Print only the key, for scripts.")

    def handle(self, *args: object, name: str, quiet_key: bool, **options: object) -> None:
        if GameServer.objects.filter(name=name).exists():
            raise CommandError(f"A game server named {name!r} exists already.")
        issued = game_server_create(name=name)
        if quiet_key:
            self.stdout.write(issued.key)
            return
        self.stdout.write(f"Game server {name!r} created. Its API key (shown only now, store it safely):")
        self.stdout.write(issued.key)
