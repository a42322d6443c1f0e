"""Thin Celery doors into matchmaking's services.

``run_due_pools`` is beat's every second: each pool with tickets waiting gets a pass, under the pool's lock, so
several workers running it at once never match a ticket twice (a locked pool is skipped: its pass is running).
``deliver_table`` pushes one table to one game server; a failed attempt is retried by Celery with a doubling
countdown, and a retry lost with its worker is picked up again by ``run_due_pools`` (``deliveries_overdue``).
Both are safe to run twice.
"""
from __future__ import annotations

from celery import shared_task
from django.conf import settings

from arena.announcements import PushesDue
from matchmaking import history, push, services


@shared_task(name="matchmaking.tasks.run_due_pools", ignore_result=True)
def run_due_pools() -> int:
    return sum(result.tables for result in services.pools_run_due())


def on_pushes_due(fact: PushesDue) -> None:
    """Subscribed to ``PushesDue`` (matchmaking's apps.py): one push task per delivery; a lost one is overdue
    within a minute and sent again by ``run_due_pools``."""
    for delivery_id in fact.delivery_ids:
        deliver_table.delay(delivery_id)


@shared_task(name="matchmaking.tasks.deliver_table", bind=True, ignore_result=True, max_retries=None)
def deliver_table(self, delivery_id: str) -> bool:
    outcome = push.delivery_attempt(delivery_id=delivery_id)
    if outcome.retry_in is not None and not settings.CELERY_TASK_ALWAYS_EAGER:
        # Embedded mode has no queue to wait in: the next pass on a request retries it when due instead.
        raise self.retry(countdown=outcome.retry_in)
    return outcome.delivered


@shared_task(name="matchmaking.tasks.purge_closed_tickets", ignore_result=True)
def purge_closed_tickets() -> int:
    """Beat's (every ``MATCHMAKING_TICKET_PURGE_SECONDS``): closed tickets past the retention, in chunks."""
    return history.tickets_purge_closed().tickets
