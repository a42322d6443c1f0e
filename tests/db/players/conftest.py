"""Fixtures of the player-read tests."""
from __future__ import annotations

import pytest
from django.core.cache import cache

from arena.models import GameServer
from tests.db.players.builders import make_server


@pytest.fixture(autouse=True)
def _empty_throttle_cache():
    """The public throttle counts in the default cache: start and end every test with it empty."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def server(db) -> GameServer:
    return make_server()
