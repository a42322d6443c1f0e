from __future__ import annotations

import pytest

from tests.db.ratings.helpers import ensure_hanabot_table


@pytest.fixture(autouse=True)
def _hanabot_table(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("django_db") is not None or "db" in request.fixturenames:
        ensure_hanabot_table()


@pytest.fixture(autouse=True)
def _no_ban_timer_left() -> object:
    """An embedded timed ban's timer never fires into the next test's database."""
    yield
    from moderation import tasks

    tasks.ban_timers_cancel()
