"""The history purge's chunk (matchmaking/history.py): closed tickets past the retention, with their seats."""

from __future__ import annotations

from datetime import datetime

from django.db import connection

from matchmaking.models import Ticket, TicketSeat

_TICKET = Ticket._meta.db_table
_SEAT = TicketSeat._meta.db_table


_PURGE_SQL = f"""
WITH doomed AS (
    SELECT id FROM {_TICKET}
    WHERE created_at < %(cutoff)s AND status <> 'waiting' AND closed_at < %(cutoff)s
    ORDER BY created_at LIMIT %(chunk)s FOR UPDATE SKIP LOCKED
), seats AS (
    DELETE FROM {_SEAT} s USING doomed d WHERE s.ticket_id = d.id
)
DELETE FROM {_TICKET} t USING doomed d WHERE t.id = d.id
"""


def tickets_closed_delete(*, cutoff: datetime, size: int) -> int:
    """At most ``size`` closed tickets created and closed before ``cutoff``, oldest first, deleted with their seats
    (the history purge's chunk, matchmaking/history.py): on PostgreSQL one statement that skips locked rows,
    elsewhere the ORM with the same meaning. Returns how many tickets went."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_PURGE_SQL, {"cutoff": cutoff, "chunk": size})
            deleted: int = cursor.rowcount
            return deleted
    ids = list(
        Ticket.objects.filter(created_at__lt=cutoff, closed_at__lt=cutoff)
        .exclude(status=Ticket.Status.WAITING)
        .order_by("created_at")
        .values_list("pk", flat=True)[:size]
    )
    TicketSeat.objects.filter(ticket_id__in=ids).delete()
    Ticket.objects.filter(pk__in=ids).delete()
    return len(ids)
