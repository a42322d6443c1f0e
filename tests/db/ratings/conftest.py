from __future__ import annotations

import pytest

from tests.db.ratings.helpers import ensure_hanabot_table


@pytest.fixture(autouse=True)
def _hanabot_table(request: pytest.FixtureRequest) -> None:
    """Every database test here rates Hanabi against the seeded table, whatever ran before."""
    if request.node.get_closest_marker("django_db") is not None:
        ensure_hanabot_table()
