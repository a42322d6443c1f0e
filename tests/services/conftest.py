"""The service-backed suite: real PostgreSQL, Redis and Celery worker processes, never mocks.

It runs when DATABASE_URL and REDIS_URL are set (scripts/test sets them in its second phase). Elsewhere it is
skipped, except under ARENA_REQUIRE_SERVICES=1 (CI), where a missing service is a failure, not a skip.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings


def _require_services() -> None:
    missing = [name for name in ("DATABASE_URL", "REDIS_URL") if not os.environ.get(name)]
    if settings.IS_POSTGRES and not missing:
        return
    reason = f"service-backed test needs {', '.join(missing) or 'a PostgreSQL DATABASE_URL'}"
    if os.environ.get("ARENA_REQUIRE_SERVICES") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.services)


@pytest.fixture(autouse=True)
def _services_present() -> None:
    _require_services()


@pytest.fixture
def redis_conn():
    """The test Redis database, emptied before and after each test."""
    from infra.redis import redis_client

    client = redis_client()
    client.flushdb()
    yield client
    client.flushdb()
