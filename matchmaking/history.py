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
from django.db import transaction
from django.utils import timezone

from matchmaking.store import tickets_closed_delete

# One run deletes at most this many chunks, so a first purge of years of history is spread over several runs.
MAX_CHUNKS_PER_RUN = 200


@dataclass(frozen=True, slots=True)
class Purged:
    tickets: int
    chunks: int


def tickets_purge_closed(
    *,
    now: datetime | None = None,
    retention_days: int | None = None,
    chunk: int | None = None,
    max_chunks: int = MAX_CHUNKS_PER_RUN,
) -> Purged:
    """Deletes closed tickets older than the retention (with their seats), chunk by chunk; safe to run twice."""
    days = settings.MATCHMAKING_TICKET_RETENTION_DAYS if retention_days is None else retention_days
    size = chunk or settings.MATCHMAKING_TICKET_PURGE_CHUNK
    cutoff = (now or timezone.now()) - timedelta(days=days)
    total = chunks = 0
    while chunks < max_chunks:
        with transaction.atomic():
            deleted = tickets_closed_delete(cutoff=cutoff, size=size)
        chunks += 1
        total += deleted
        if deleted < size:
            break
    return Purged(tickets=total, chunks=chunks)
