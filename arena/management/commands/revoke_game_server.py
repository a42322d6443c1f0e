"""``manage.py revoke_game_server NAME``: the key stops working for good, at once.

In the same transaction its waiting tickets are cancelled (reason ``server_revoked``) and its pending pushes
abandoned (docs/security.md#rotating-keys-and-callback-secrets). There is no un-revoke: a server shut out gets a
new game server, with a new name.
"""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.models import GameServer
from arena.servers import game_server_revoke


class Command(BaseCommand):
    help = "Revoke a game server's API key for good (its waiting tickets are cancelled, its pushes abandoned)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")

    def handle(self, *args: object, name: str, **options: object) -> None:
        server = GameServer.objects.filter(name=name).first()
        if server is None:
            raise CommandError(f"No game server named {name!r}.")
        if not game_server_revoke(server=server):
            self.stdout.write(f"Game server {name!r} was revoked already.")
            return
        self.stdout.write(
            f"Game server {name!r} revoked: its key no longer opens the API; its waiting tickets "
            "are cancelled (server_revoked) and its pending pushes abandoned."
        )
