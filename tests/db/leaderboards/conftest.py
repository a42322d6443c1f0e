"""The embedded board: whatever the environment says, these tests read the database board (no Redis)."""

from __future__ import annotations

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _embedded(settings, db) -> None:
    settings.REDIS_URL = ""
    # The throttle counts requests in the cache; every test starts with a clean count.
    cache.clear()
