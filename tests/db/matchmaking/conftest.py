"""Builders for matchmaking tests: ticket bodies with an own IP per player unless told otherwise."""
from __future__ import annotations

import itertools
from typing import Any

import pytest
from rest_framework.test import APIClient

from arena.servers import game_server_create

_addresses = itertools.count(1)
_servers = itertools.count(1)


def address() -> str:
    """An IPv6 address in its own /64, so no two players share an IP hash by chance."""
    return f"2001:db8:{next(_addresses) % 65536:x}::1"


def ticket_body(player: str, game: str = "tokaido", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"player": player, "game": game, "ip": extra.pop("ip", None) or address()}
    body.update(extra)
    return body


def another_server() -> APIClient:
    issued = game_server_create(name=f"mm-server-{next(_servers)}")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {issued.key}")
    client.server = issued.server
    return client


@pytest.fixture
def other_api(db) -> APIClient:
    return another_server()


@pytest.fixture(autouse=True)
def _embedded_matchmaking(settings):
    """These tests describe the embedded mode (a pass on each request, pushes in-process), whichever database
    runs them; the real workers have their own test (tests/services/test_matchmaking_workers.py)."""
    from config.celery import app

    settings.MATCHMAKING_PASS_ON_REQUEST = True
    settings.CELERY_TASK_ALWAYS_EAGER = True
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = eager
