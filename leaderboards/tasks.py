"""Thin Celery doors into the leaderboard services."""
from celery import shared_task

from leaderboards.services import boards_prune


@shared_task(name="leaderboards.tasks.prune_inactive")
def prune_inactive() -> dict[str, int]:
    """Hourly (CELERY_BEAT_SCHEDULE): players whose last rated game is 90 days old leave the Redis boards.

    Safe to run twice or concurrently: removing a player who is gone already changes nothing.
    """
    return boards_prune()
