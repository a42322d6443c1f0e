from __future__ import annotations

import pytest
from django.core.cache import cache

from arena.models import GameServer
from tests.db.ratings.builders import make_server
from tests.db.ratings.helpers import ensure_hanabot_table


@pytest.fixture(autouse=True)
def _hanabot_table(request: pytest.FixtureRequest) -> None:
    """Every database test here rates Hanabi against the seeded table, whatever ran before."""
    if request.node.get_closest_marker("django_db") is not None:
        ensure_hanabot_table()


@pytest.fixture(autouse=True)
def _empty_throttle_cache():
    """The public throttle counts in the default cache (the player pages'): every test starts and ends empty."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def server(db) -> GameServer:
    return make_server()
