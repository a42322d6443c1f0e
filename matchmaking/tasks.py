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
from arena.task_log import task_facts
from matchmaking import push, services


@shared_task(name="matchmaking.tasks.run_due_pools", ignore_result=True)
def run_due_pools() -> int:
    results = services.pools_run_due()
    tables = sum(result.tables for result in results)
    task_facts(pools=len(results), tables=tables, seconds_max=round(max((r.seconds for r in results), default=0), 4))
    return tables


def on_pushes_due(fact: PushesDue) -> None:
    """Subscribed to ``PushesDue`` (matchmaking's apps.py): one push task per delivery; a lost one is overdue
    within a minute and sent again by ``run_due_pools``."""
    for delivery_id in fact.delivery_ids:
        deliver_table.delay(delivery_id)


@shared_task(name="matchmaking.tasks.deliver_table", bind=True, ignore_result=True, max_retries=None)
def deliver_table(self, delivery_id: str) -> bool:
    outcome = push.delivery_attempt(delivery_id=delivery_id)
    task_facts(delivery=delivery_id, delivered=outcome.delivered, retry_in=outcome.retry_in)
    if outcome.retry_in is not None and not settings.CELERY_TASK_ALWAYS_EAGER:
        # Embedded mode has no queue to wait in: the next pass on a request retries it when due instead.
        raise self.retry(countdown=outcome.retry_in)
    return outcome.delivered
