"""Thin Celery doors into the rating services."""
from celery import shared_task


@shared_task(name="ratings.tasks.rate_elo")
def rate_elo(title: str) -> None:
    """Placeholder hand-off until the rating stage lands (issue 3)."""


@shared_task(name="ratings.tasks.sweep_pending")
def sweep_pending() -> None:
    """Placeholder until the rating stage lands (issue 3)."""
