"""Pushes: the formed tables' deliveries handed to the workers after the commit (``tables_push``), retried,
taken when overdue, abandoned for a revoked server.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from infra import handoffs, mode
from matchmaking import events
from matchmaking.models import Delivery

# The formed (or due, or retried) tables' deliveries, handed over after the commit: matchmaking/tasks.py queues one
# push task per delivery id, so a worker never reads a delivery before it is committed.
# Declared in matchmaking/events.py, beside the events every push carries.
tables_push = events.tables_push


def pushes_due(delivery_ids: Sequence[Any]) -> None:
    if delivery_ids:
        handoffs.hand_off(tables_push, tuple(str(delivery_id) for delivery_id in delivery_ids))


def deliveries_abandon(*, server_id: int, reason: str) -> int:
    """The server's pending pushes are given up: recorded as abandoned, never sent (a worker holding one finds it
    no longer pending and leaves it)."""
    abandoned: int = Delivery.objects.filter(server_id=server_id, status=Delivery.Status.PENDING).update(
        status=Delivery.Status.ABANDONED, next_attempt_at=None, last_error=reason
    )
    return abandoned


def deliveries_retry(*, delivery_ids: Sequence[Any], now: datetime | None = None) -> int:
    """Undelivered pushes sent again with a fresh allowance of attempts (the admin's retry): ``round_start``
    moves up to the attempts made, which go on counting, as the attempt rows do, so the page's "attempts" is
    always the number of rows beside it. A revoked server's pushes are never sent again. The tasks go out after
    the commit, so a worker never reads the delivery before its reset."""
    with transaction.atomic():
        chosen = list(
            Delivery.objects.filter(pk__in=delivery_ids, server__revoked_at__isnull=True)
            .exclude(status=Delivery.Status.DELIVERED)
            .values_list("pk", flat=True)
        )
        Delivery.objects.filter(pk__in=chosen).update(
            status=Delivery.Status.PENDING, round_start=F("attempts"), next_attempt_at=now or timezone.now()
        )
        pushes_due(chosen)
    return len(chosen)


def deliveries_overdue(*, now: datetime | None = None) -> list[Any]:
    """Pending pushes whose next attempt is due: lost messages with real workers, every retry when embedded.

    With real workers a push's retries are Celery's own (countdown); only those overdue by a minute are taken
    here, for a worker that died holding one. Embedded, nothing waits in a queue, so every due retry is taken.
    """
    moment = now or timezone.now()
    due_by = moment if mode.tasks_in_process() else moment - timezone.timedelta(minutes=1)
    due = list(
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=due_by).values_list(
            "pk", flat=True
        )[:500]
    )
    if due:
        # Taken: not again from the next second's sweep while this attempt waits in the queue (its own outcome
        # sets the next time).
        Delivery.objects.filter(pk__in=due, status=Delivery.Status.PENDING).update(
            next_attempt_at=moment + timezone.timedelta(minutes=1)
        )
    return due


def delivery_claim_due(*, delivery_id: Any, now: datetime | None = None) -> bool:
    """Takes one pending push whose retry is due, as ``deliveries_overdue`` takes many (its next time moved a
    minute on, so a concurrent sweep leaves it): the embedded mode's retry timer asks this before its attempt,
    so the timer and a request's sweep never both send it. False when it is not due, or no longer pending."""
    moment = now or timezone.now()
    return bool(
        Delivery.objects.filter(pk=delivery_id, status=Delivery.Status.PENDING, next_attempt_at__lte=moment).update(
            next_attempt_at=moment + timezone.timedelta(minutes=1)
        )
    )
