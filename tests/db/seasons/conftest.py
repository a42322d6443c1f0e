"""Season tests read the database (no Redis), with a clean throttle count and the Hanabot table seeded."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from tests.db.ratings.helpers import ensure_hanabot_table


@pytest.fixture(autouse=True)
def _embedded(settings, db) -> None:
    settings.REDIS_URL = ""
    settings.SEASON_PLACEMENT_GAMES = 3
    ensure_hanabot_table()
    cache.clear()
