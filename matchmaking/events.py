"""Every push to a game server is an event (docs/api.md, "Events"): one envelope, one signature scheme, one log.

The envelope is Stripe's and GitHub's shape, so a receiver routes on one field and drops a duplicate by one id::

    {"id": "<uuid>", "type": "table.formed", "created_at": "2026-12-03T10:00:00Z", "api_version": "v1",
     "data": {...}}

and the type travels in the ``Arena-Event`` header too (a receiver can route before parsing). ``id`` is the
delivery's id (``X-Arena-Delivery``), the same on every attempt and on a redelivery, because each event goes to
exactly one game server.

Other apps push through one function, ``event_push(server, type, data)`` (the moderator's ``player.warned``, the
tournaments' ``tournament.table_formed``): it writes the delivery in the caller's transaction and the push goes out
after the commit, retried and logged as every push is. A server with no enabled callback gets nothing (None).

The deliveries are rows of ``Delivery``; a ``table.formed`` reads its table at each send, every other event keeps
its ``data`` as it was when it happened.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from arena.models import GameServer
from infra import handoffs
from matchmaking.models import Delivery, ServerCallback, Ticket, TicketSeat

API_VERSION = "v1"
EVENT_HEADER = "Arena-Event"

TABLE_FORMED = "table.formed"
TICKET_EXPIRED = "ticket.expired"
TICKET_CANCELLED = "ticket.cancelled"
PLAYER_WARNED = "player.warned"
TOURNAMENT_TABLE_FORMED = "tournament.table_formed"
PING = "ping"

# Every type a push may carry, in the order docs/api.md describes them; the schema declares one webhook each.
EVENT_TYPES: tuple[str, ...] = (
    TABLE_FORMED,
    TICKET_EXPIRED,
    TICKET_CANCELLED,
    PLAYER_WARNED,
    TOURNAMENT_TABLE_FORMED,
    PING,
)

# Declared here, beside the event pushes, and bound by matchmaking/tasks.py ``push_each`` (through
# ``services.tables_push``, the same object): a push of any event is the same work.
tables_push = handoffs.HandOff("matchmaking: push the tables")


def envelope(*, event_id: str, event_type: str, created_at: datetime, data: Any) -> dict[str, Any]:
    """The body of a push: the event's id, type, time (UTC, ``Z``), the API version its ``data`` is shaped by."""
    return {
        "id": event_id,
        "type": event_type,
        "created_at": _utc_z(created_at),
        "api_version": API_VERSION,
        "data": data,
    }


def _utc_z(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def as_json_data(data: Any) -> Any:
    """``data`` as JSON will carry it (times as the API writes them), so what is stored is what is sent."""
    return json.loads(json.dumps(data, cls=JSONEncoder, ensure_ascii=False))


def _callback_urls(server_ids: Sequence[int]) -> dict[int, str]:
    """The servers among ``server_ids`` that take pushes now: an enabled callback, a key not revoked."""
    return dict(
        ServerCallback.objects.filter(
            server_id__in=set(server_ids), enabled=True, server__revoked_at__isnull=True
        ).values_list("server_id", "url")
    )


def deliveries_create(*, events: Sequence[tuple[int, str, Any]], now: datetime | None = None) -> list[Any]:
    """Rows for ``(server_id, type, data)`` events, in the caller's transaction, for the servers that take pushes;
    returns their ids for the caller to hand to ``tables_push`` after its commit."""
    if not events:
        return []
    moment = now or timezone.now()
    urls = _callback_urls([server_id for server_id, _, _ in events])
    rows = [
        Delivery(
            server_id=server_id,
            event_type=event_type,
            data=as_json_data(data),
            url=urls[server_id],
            created_at=moment,
            next_attempt_at=moment,
        )
        for server_id, event_type, data in events
        if server_id in urls
    ]
    Delivery.objects.bulk_create(rows)
    return [row.pk for row in rows]


def event_push(server: GameServer | int, type: str, data: Any) -> Delivery | None:
    """Push an event of ``type`` with ``data`` to ``server`` (a ``GameServer`` or its id): the one door other apps
    use (docs/api.md, "Pushing an event from another app"). Written in the caller's transaction, sent after its
    commit (a rollback sends nothing), signed, retried and listed in the server's deliveries like a table's push.
    None when the server takes no pushes (no enabled callback, or its key revoked). ``data`` must be JSON
    (times are written as the API writes them)."""
    if type not in EVENT_TYPES or type == TABLE_FORMED:
        raise ValueError(f"{type!r} is not an event type another app may push (matchmaking.events.EVENT_TYPES)")
    server_id = server if isinstance(server, int) else server.pk
    with transaction.atomic():
        ids = deliveries_create(events=[(server_id, type, data)])
        if ids:
            handoffs.hand_off(tables_push, tuple(str(delivery_id) for delivery_id in ids))
    return Delivery.objects.get(pk=ids[0]) if ids else None


def ticket_closed_deliveries(*, ticket_ids: Sequence[Any], now: datetime) -> list[Any]:
    """``ticket.expired`` and ``ticket.cancelled`` for tickets just closed at ``now`` (a pass's expiries, a DELETE,
    a ban), so a server never waits on a ticket Arena dropped. A revoked server's tickets push nothing: its key
    and its pushes end together. In the caller's transaction; the ids are handed over after its commit."""
    if not ticket_ids:
        return []
    closed = list(
        Ticket.objects.filter(
            pk__in=ticket_ids, closed_at=now, status__in=[Ticket.Status.EXPIRED, Ticket.Status.CANCELLED]
        )
        .exclude(cancel_reason=Ticket.CancelReason.SERVER_REVOKED)
        .filter(server__matchmaking_callback__enabled=True, server__revoked_at__isnull=True)
        .select_related("pool")
    )
    if not closed:
        return []
    handles: dict[Any, list[str]] = {}
    for ticket_id, handle in (
        TicketSeat.objects.filter(ticket_id__in=[t.pk for t in closed])
        .order_by("ticket_id", "position")
        .values_list("ticket_id", "player__handle")
    ):
        handles.setdefault(ticket_id, []).append(handle)
    events = []
    for ticket in closed:
        seats = handles.get(ticket.pk, [])
        body: dict[str, Any] = {
            "id": str(ticket.pk),
            "status": ticket.status,
            "player": seats[0] if seats else None,
            "party": seats[1:],
            "game": ticket.pool.title,
            "variant": ticket.pool.variant,
            "rated": ticket.pool.rated,
            "request_id": ticket.request_id,
            "created_at": ticket.created_at,
            "closed_at": ticket.closed_at,
        }
        if ticket.status == Ticket.Status.CANCELLED:
            body["reason"] = ticket.cancel_reason
        kind = TICKET_EXPIRED if ticket.status == Ticket.Status.EXPIRED else TICKET_CANCELLED
        events.append((ticket.server_id, kind, {"ticket": body}))
    return deliveries_create(events=events, now=now)
