"""Thin Celery doors into matchmaking's services.

``run_due_pools`` is beat's every second: each pool with tickets waiting gets a pass, under the pool's lock, so
several workers running it at once never match a ticket twice (a locked pool is skipped: its pass is running).
``deliver_table`` pushes one table to one game server; a failed attempt is retried by Celery with a doubling
countdown, and a retry lost with its worker is picked up again by ``run_due_pools`` (``deliveries_overdue``).
Both are safe to run twice.

Embedded (no broker, tasks run in-process) there is no queue to wait in, so a failed attempt's retry is a timer
thread that runs the same task when it is due (2, 4, 8 ... s later), with no request needed to wake it: it takes
the delivery first (``delivery_claim_due``), so a request's sweep at the same moment never sends it twice. A retry
due while the process was stopped goes out with the first ticket request after a restart.
"""

from __future__ import annotations

import threading
from typing import Any

from celery import shared_task
from django.db import connections

from infra import mode
from infra.task_log import task_facts
from matchmaking import history, push, services


@shared_task(name="matchmaking.tasks.run_due_pools", ignore_result=True)
def run_due_pools() -> int:
    results = services.pools_run_due()
    tables = sum(result.tables for result in results)
    task_facts(pools=len(results), tables=tables, seconds_max=round(max((r.seconds for r in results), default=0), 4))
    return tables


@services.tables_push.done_by
def push_each(delivery_ids: tuple[str, ...]) -> None:
    """The services' hand-off after a pass, an overdue sweep or an admin's retry: one push task per delivery; a
    lost one is overdue within a minute and sent again by ``run_due_pools``."""
    for delivery_id in delivery_ids:
        deliver_table.delay(delivery_id)


@shared_task(name="matchmaking.tasks.deliver_table", bind=True, ignore_result=True, max_retries=None)
def deliver_table(self, delivery_id: str) -> bool:
    outcome = push.delivery_attempt(delivery_id=delivery_id)
    task_facts(delivery=delivery_id, delivered=outcome.delivered, retry_in=outcome.retry_in)
    if outcome.retry_in is not None:
        if mode.tasks_in_process():
            _retry_in_process(delivery_id, outcome.retry_in)
        else:
            raise self.retry(countdown=outcome.retry_in)
    return outcome.delivered


# A hair after the due time, so the delivery's next_attempt_at has passed when the timer asks for it.
_TIMER_SLACK_SECONDS = 0.05


_timers: set[threading.Timer] = set()
_timers_lock = threading.Lock()


def _retry_in_process(delivery_id: Any, delay: float) -> None:
    timer = threading.Timer(delay + _TIMER_SLACK_SECONDS, _retry_due, args=(delivery_id,))
    timer.daemon = True  # a stopped process loses it; the sweep on the next request sends it then
    timer.name = f"arena-push-retry-{delivery_id}"
    with _timers_lock:
        _timers.add(timer)
    timer.start()


def _retry_due(delivery_id: Any) -> None:
    try:
        if services.delivery_claim_due(delivery_id=delivery_id):
            deliver_table(str(delivery_id))
    finally:
        with _timers_lock:
            _timers.discard(threading.current_thread())  # type: ignore[arg-type]
        connections.close_all()  # this thread's own connections, not the request threads'


def retry_timers_cancel() -> int:
    """Cancels the embedded mode's pending retry timers (a test's end, so none fires into the next test's
    database); returns how many. The deliveries stay pending: the next sweep sends them."""
    with _timers_lock:
        pending, _timers_copy = len(_timers), list(_timers)
        _timers.clear()
    for timer in _timers_copy:
        timer.cancel()
    return pending


@shared_task(name="matchmaking.tasks.purge_closed_tickets", ignore_result=True)
def purge_closed_tickets() -> int:
    """Beat's (every ``MATCHMAKING_TICKET_PURGE_SECONDS``): closed tickets past the retention, in chunks."""
    return history.tickets_purge_closed().tickets
