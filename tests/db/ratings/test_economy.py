"""arena_rating_active_median (docs/observability.md): the median Elo of each title's active players, by hand."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

from ratings.models import Rating
from ratings.store import economy
from ratings.store.economy import active_medians
from tests.db.ratings.builders import make_player


def _rate(handle: str, title: str, elo: float, days_ago: int) -> None:
    Rating.objects.create(
        player=make_player(handle),
        title=title,
        elo=elo,
        games=7,
        last_game_at=timezone.now() - timedelta(days=days_ago),
    )


@pytest.mark.parametrize("vendor", ["native", "python"])
def test_median_of_active_players_by_hand(db, monkeypatch, vendor):
    if vendor == "python":  # the path of a database without percentile_cont: the same figures
        monkeypatch.setattr(economy, "connection", SimpleNamespace(vendor="other"))
    # wizard: 1400, 1500, 1700 active; 2000 last played 120 days ago (not active) → median 1500.
    # nile: 1450 and 1530 active → (1450 + 1530) / 2 = 1490. tokaido: nobody active → absent.
    _rate("a", "wizard", 1400.0, 1)
    _rate("b", "wizard", 1500.0, 10)
    _rate("c", "wizard", 1700.0, 89)
    _rate("d", "wizard", 2000.0, 120)
    _rate("e", "nile", 1450.0, 3)
    _rate("f", "nile", 1530.0, 30)
    _rate("g", "tokaido", 1600.0, 400)
    assert active_medians() == {"wizard": 1500.0, "nile": 1490.0}
