"""Thin Celery doors into the leaderboard services."""
from celery import shared_task

from leaderboards.services import board_rebuild, boards_prune


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
