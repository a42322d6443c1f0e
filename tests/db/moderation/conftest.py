from __future__ import annotations

import pytest

from tests.db.ratings.helpers import ensure_hanabot_table


@pytest.fixture(autouse=True)
def _hanabot_table(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("django_db") is not None or "db" in request.fixturenames:
        ensure_hanabot_table()
