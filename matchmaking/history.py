"""Ticket history: closed tickets (matched, cancelled, expired) older than the retention are deleted.

A ticket is worth keeping while a game server may still ask about it (its GET answers with the table) and a
moderator may look at it; after ``MATCHMAKING_TICKET_RETENTION_DAYS`` (30) it is only weight. The purge walks
the oldest tickets first through ``mm_ticket_created`` and deletes ``MATCHMAKING_TICKET_PURGE_CHUNK`` at a time,
each chunk its own short transaction, so it never holds a long lock or a long transaction on the table a pass
writes every second. The tables they sat at are kept (tables are never deleted; deliveries point at them).

A ticket expires 10 minutes after it started waiting (docs/matchmaking.md), so a ticket created before the cutoff
is closed well before it; the status and ``closed_at`` are checked all the same.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from matchmaking.models import Ticket, TicketSeat

# One run deletes at most this many chunks, so a first purge of years of history is spread over several runs.
MAX_CHUNKS_PER_RUN = 200

_PURGE_SQL = f"""
WITH doomed AS (
    SELECT id FROM {Ticket._meta.db_table}
    WHERE created_at < %(cutoff)s AND status <> 'waiting' AND closed_at < %(cutoff)s
    ORDER BY created_at LIMIT %(chunk)s FOR UPDATE SKIP LOCKED
), seats AS (
    DELETE FROM {TicketSeat._meta.db_table} s USING doomed d WHERE s.ticket_id = d.id
)
DELETE FROM {Ticket._meta.db_table} t USING doomed d WHERE t.id = d.id
"""


@dataclass(frozen=True, slots=True)
class Purged:
    tickets: int
    chunks: int


def tickets_purge_closed(*, now: datetime | None = None, retention_days: int | None = None,
                         chunk: int | None = None, max_chunks: int = MAX_CHUNKS_PER_RUN) -> Purged:
    """Deletes closed tickets older than the retention (with their seats), chunk by chunk; safe to run twice."""
    days = settings.MATCHMAKING_TICKET_RETENTION_DAYS if retention_days is None else retention_days
    size = chunk or settings.MATCHMAKING_TICKET_PURGE_CHUNK
    cutoff = (now or timezone.now()) - timedelta(days=days)
    total = chunks = 0
    while chunks < max_chunks:
        with transaction.atomic():
            deleted = _delete_chunk(cutoff, size)
        chunks += 1
        total += deleted
        if deleted < size:
            break
    return Purged(tickets=total, chunks=chunks)


def _delete_chunk(cutoff: datetime, size: int) -> int:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_PURGE_SQL, {"cutoff": cutoff, "chunk": size})
            return cursor.rowcount
    ids = list(Ticket.objects.filter(created_at__lt=cutoff, closed_at__lt=cutoff)
               .exclude(status=Ticket.Status.WAITING).order_by("created_at").values_list("pk", flat=True)[:size])
    TicketSeat.objects.filter(ticket_id__in=ids).delete()
    Ticket.objects.filter(pk__in=ids).delete()
    return len(ids)
