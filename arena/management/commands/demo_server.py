"""``manage.py demo_server``: a ready-to-use game server for trying Arena locally, with a curl example.

Keys are stored hashed, so Arena cannot show a key twice. The demo key is therefore kept in ``var/demo_key``
(``ARENA_VAR_DIR``; readable by its owner only) and reused on every run while it still works, so a curl
command or a script written against yesterday's run keeps working. Only when that file is missing, or holds a
key that no longer opens the demo server (a fresh database, a key rotated in the admin), is a new key issued; if
the demo server existed, its old key stops working, and the command says so. A demo server revoked in the admin
stays revoked (a revocation is for good): it is renamed ``demo-revoked-<id>`` and a new ``demo`` is created.

The demo server holds every scope (``preferences`` included), so the README's whole tour runs with its key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from arena.games import all_games
from arena.models import SCOPES, GameServer
from arena.servers import game_server_create, game_server_get_by_key, game_server_key_rotate, game_server_scopes_set

DEMO_NAME = "demo"


def _stored_key(path: Path) -> str | None:
    """The key saved by an earlier run, if it still opens the demo server."""
    try:
        key = path.read_text().strip()
    except OSError:
        return None
    server = game_server_get_by_key(key) if key else None
    return key if server is not None and server.name == DEMO_NAME else None


def _save_key(path: Path, key: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key + "\n")


class Command(BaseCommand):
    help = "Create the 'demo' game server (or reuse its key from var/demo_key) and print a curl example."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", default="8000")
        parser.add_argument("--key-file", default=None, help="Where the demo key is kept (default var/demo_key).")

    def handle(self, *args: object, port: str, key_file: str | None, **options: object) -> None:
        path = Path(key_file) if key_file else Path(settings.VAR_DIR) / "demo_key"
        key = _stored_key(path)
        if key is not None:
            game_server_scopes_set(server=GameServer.objects.get(name=DEMO_NAME), scopes=SCOPES)
            self.stdout.write(self.style.SUCCESS(f"Demo game server key: {key}") + f"  (reused from {path})")
        else:
            server = GameServer.objects.filter(name=DEMO_NAME).first()
            if server is not None and server.revoked_at is not None:
                GameServer.objects.filter(pk=server.pk).update(name=f"{DEMO_NAME}-revoked-{server.pk}")
                server = None
            if server is not None:
                issued = game_server_key_rotate(server=server)
                game_server_scopes_set(server=server, scopes=SCOPES)
            else:
                issued = game_server_create(name=DEMO_NAME, scopes=SCOPES)
            key = issued.key
            _save_key(path, key)
            self.stdout.write(self.style.SUCCESS(f"Demo game server key: {key}") + f"  (new, saved in {path})")
            if server is not None:
                self.stdout.write(
                    self.style.WARNING(
                        f"The demo server's previous key was replaced (it no longer works): {path} was missing or "
                        "held a key that no longer works."
                    )
                )
        body = {
            "table_id": "demo-1",
            "game": "wizard",
            "variant": {"rounds": "standard"},
            "rated": True,
            "players": [
                {"player": "alice", "ip": "203.0.113.7", "score": 180},
                {"player": "bob", "ip": "198.51.100.2", "score": 120},
                {"player": "carol", "ip": "198.51.100.9", "score": 60},
            ],
        }
        base = f"http://127.0.0.1:{port}"
        self.stdout.write("Record a game:")
        self.stdout.write(
            f"  curl -s -X POST {base}/api/v1/games/ -H 'Authorization: Api-Key {key}' "
            f"-H 'Content-Type: application/json' -d '{json.dumps(body)}'"
        )
        self.stdout.write(f"Then: curl -s {base}/api/v1/players/alice/   API docs: {base}/api/docs/")
        titles = ", ".join(game.title for game in all_games())  # the registry's list, never a second copy
        self.stdout.write(
            f'Values of "game": {titles} (docs/games.md). '
            "A player joins the leaderboard after 5 rated games, one of them in the last 90 days."
        )
