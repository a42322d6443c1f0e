"""Thin Celery doors into the leaderboard services."""

import logging

from celery import shared_task
from kombu.exceptions import OperationalError

from leaderboards import redis_board, selectors
from leaderboards.services import board_rebuild, boards_lost, boards_prune

log = logging.getLogger(__name__)


@shared_task(name="leaderboards.tasks.prune_inactive")
def prune_inactive() -> dict[str, int]:
    """Hourly (CELERY_BEAT_SCHEDULE): players whose last rated game is 90 days old leave the Redis boards.

    Safe to run twice or concurrently: removing a player who is gone already changes nothing.
    """
    return boards_prune()


@shared_task(name="leaderboards.tasks.rebuild_board")
def rebuild_board(title: str) -> int | None:
    """A reader found the board lost: copy it from the database. Run twice, the second finds the lock or rebuilds
    again from the same source of truth; either way the result is the database's board."""
    rebuilt = board_rebuild(title=title, wait=False)
    return None if rebuilt is None else rebuilt.players


@selectors.lost_board_rebuild.done_by
def rebuild_lost(title: str) -> None:
    """The readers' hand-off: they found the title's board gone."""
    request_board_rebuild(title=title)


def request_board_rebuild(*, title: str) -> None:
    """Has a worker rebuild the title's board, once however many readers found it lost (within a minute)."""
    if redis_board.request_rebuild(title):
        try:
            rebuild_board.delay(title)
        except OperationalError:
            # No broker: the hourly prune (or the next reader, a minute on) tries again.
            log.exception("leaderboard %s: could not queue its rebuild", title)


@shared_task(name="leaderboards.tasks.sweep_lost_boards")
def sweep_lost_boards() -> list[str]:
    """Beat's safety net (every ``LEADERBOARD_SWEEP_SECONDS``): a rebuild for every board still lost.

    A ``rebuild_board`` message lost with a killed worker (or never sent: the broker was the Redis that lost the
    board) leaves the board missing, and the missing board is the record: this finds it and asks again, through
    the same once-a-minute marker as the readers, so a rebuild already queued or running is not doubled.
    """
    lost = boards_lost()
    for title in lost:
        request_board_rebuild(title=title)
    return lost
