"""``manage.py demo_server``: a ready-to-use game server for trying Arena locally, with a curl example.

Keys are stored hashed, so each run issues the demo server a fresh key (the previous one stops working).
"""
import json

from django.core.management.base import BaseCommand, CommandParser

from arena.models import GameServer
from arena.servers import game_server_create, game_server_rotate_key

DEMO_NAME = "demo"


class Command(BaseCommand):
    help = "Create (or re-key) the 'demo' game server and print a curl example that records a game."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", default="8000")

    def handle(self, *args: object, port: str, **options: object) -> None:
        server = GameServer.objects.filter(name=DEMO_NAME).first()
        issued = game_server_rotate_key(server=server) if server else game_server_create(name=DEMO_NAME)
        body = {
            "table_id": "demo-1", "game": "wizard", "variant": {"rounds": "standard"}, "rated": True,
            "players": [
                {"player": "alice", "ip": "203.0.113.7", "score": 180},
                {"player": "bob", "ip": "198.51.100.2", "score": 120},
                {"player": "carol", "ip": "198.51.100.9", "score": 60},
            ],
        }
        base = f"http://127.0.0.1:{port}"
        self.stdout.write(self.style.SUCCESS(f"Demo game server key: {issued.key}"))
        self.stdout.write("Record a game:")
        self.stdout.write(
            f"  curl -s -X POST {base}/api/v1/games/ -H 'Authorization: Api-Key {issued.key}' "
            f"-H 'Content-Type: application/json' -d '{json.dumps(body)}'"
        )
        self.stdout.write(f"Then: curl -s {base}/api/v1/players/alice/   API docs: {base}/api/docs/")
