"""Tournament tests: the embedded mode (tasks in-process, pushes to a loopback receiver), a server with every
scope, and the helpers a game server would write."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from rest_framework.test import APIClient

from arena.models import SCOPES
from arena.servers import game_server_create
from matchmaking import tasks

_servers = itertools.count(1)
_addresses = itertools.count(1)
_tables = itertools.count(1)
TOURNAMENTS = "/api/v1/tournaments/"


def address() -> str:
    return f"2001:db8:{next(_addresses) % 65536:x}::1"


def client_for(scopes: tuple[str, ...] = SCOPES) -> APIClient:
    issued = game_server_create(name=f"to-server-{next(_servers)}", scopes=scopes)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {issued.key}")
    client.server = issued.server
    return client


@pytest.fixture
def organiser(db) -> APIClient:
    return client_for()


@pytest.fixture(autouse=True)
def _embedded_tournaments(embedded_mode, settings, monkeypatch):
    settings.PUSH_ALLOW_PRIVATE_NETWORKS = True  # the receiver is on 127.0.0.1
    settings.REDIS_URL = ""
    monkeypatch.setattr(tasks, "_retry_in_process", lambda delivery_id, delay: None)


def tokaido_game(table: dict[str, Any], scores: dict[str, int], **extra: Any) -> dict[str, Any]:
    """The game a server records for a pushed table: Tokaido, one score each, naming the table."""
    body: dict[str, Any] = {
        "table_id": f"TT-{next(_tables)}",
        "game": "tokaido",
        "tournament_table": table["id"],
        "players": [{"player": p, "ip": address(), "score": scores[p], "achievements": 0} for p in table["seats"]],
    }
    body.update(extra)
    return body


def create(client: APIClient, **extra: Any) -> dict[str, Any]:
    body = {"name": "Winter Swiss", "game": "tokaido", "rounds": 5, "starts_at": "2030-01-01T18:00:00Z"}
    body.update(extra)
    response = client.post(TOURNAMENTS, body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def register(client: APIClient, tournament_id: int, handle: str) -> Any:
    return client.post(f"{TOURNAMENTS}{tournament_id}/players/", {"player": handle, "ip": address()}, format="json")
