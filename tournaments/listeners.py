"""What tournaments hear from below (``infra/announcements.py``), subscribed once by ``TournamentsConfig.ready``:
a void's games, re-scored in a worker (in-process when embedded), docs/tournaments.md#voids."""

from __future__ import annotations

from infra.announcements import GamesVoided, subscribe
from tournaments.tasks import games_voided


def on_games_voided(fact: GamesVoided) -> None:
    games_voided.delay(list(fact.game_ids))


subscribe(GamesVoided, on_games_voided)
