"""Season tasks: thin doors over ``seasons/services.py``. Each is safe to repeat (the season's cursor and row lock
make a fold or a rollover happen once, whoever runs it and however often)."""

from __future__ import annotations

import logging

from celery import shared_task
from kombu.exceptions import OperationalError

from seasons import services, standings

log = logging.getLogger(__name__)


@shared_task(name="seasons.tasks.follow")
def follow(title: str, game_ids: list[int]) -> int:
    """A rating batch committed: fold it into the open season (and settle a closed one for a late game)."""
    return services.season_follow(title=title, game_ids=game_ids)


@shared_task(name="seasons.tasks.replay")
def replay(title: str) -> int:
    """Ratings rebuilt the title (a void): replay the open season, correct the closed ones."""
    return services.season_replay_live(title=title)


@shared_task(name="seasons.tasks.rollover_due")
def rollover_due() -> list[str]:
    """Beat, every minute: close the seasons whose end has passed, then fold whatever a lost message left behind."""
    closed = services.seasons_due()
    for title in services.season_titles():
        services.season_follow(title=title)
    return closed


@shared_task(name="seasons.tasks.rebuild_standings")
def rebuild_standings(season_id: int) -> int:
    """A reader found the open season's Redis copy missing or behind: copy the entries again (under the season's
    lock, so it is exact for the version it is stamped with)."""
    return standings.rebuild(season_id=season_id)


@standings.lost_copy_rebuild.done_by
def rebuild_lost(season_id: int) -> None:
    """The readers' hand-off (once a minute however many read): queue the copy's rebuild."""
    try:
        rebuild_standings.delay(season_id)
    except OperationalError:
        # No broker: the next reader a minute on asks again; the database answers meanwhile.
        log.exception("season %s: could not queue its standings copy's rebuild", season_id)
