"""Reads of a game server's pushes (docs/api.md, "Callbacks and events"): its callback as shown (never its secret
after issue), and its deliveries newest first, each with every attempt's status and timing, cursor paginated.

Two queries a page whatever its size: the deliveries (keyset on ``created_at, id``, index
``mm_delivery_server_recent``) and their attempts.
"""

from __future__ import annotations

import uuid
from typing import Any

from arena.models import GameServer
from infra.api.cursors import keyset_page
from infra.errors import InvalidInput
from matchmaking import events
from matchmaking.models import Delivery, DeliveryAttempt, ServerCallback

DELIVERIES_LIMIT_DEFAULT = 20
DELIVERIES_LIMIT_MAX = 100


def callback_present(*, callback: ServerCallback, secret: str | None = None) -> dict[str, Any]:
    """The callback as a server sees it; ``secret`` only in the one answer that issued it."""
    expires = callback.previous_secret_expires_at
    body: dict[str, Any] = {
        "url": callback.url,
        "enabled": callback.enabled,
        "previous_secret_active": bool(callback.previous_secret),
        "previous_secret_expires_at": expires if callback.previous_secret else None,
    }
    if secret is not None:
        body["secret"] = secret
    return body


def _attempt(attempt: DeliveryAttempt) -> dict[str, Any]:
    return {
        "number": attempt.number,
        "at": attempt.at,
        "status_code": attempt.status_code,
        "duration_ms": attempt.duration_ms,
        "error": attempt.error or None,
    }


def deliveries_present(deliveries: list[Delivery]) -> list[dict[str, Any]]:
    """Each delivery with its attempts, oldest attempt first (one query for all the attempts)."""
    attempts: dict[Any, list[dict[str, Any]]] = {}
    for attempt in DeliveryAttempt.objects.filter(delivery__in=[d.pk for d in deliveries]).order_by(
        "delivery_id", "number"
    ):
        attempts.setdefault(attempt.delivery_id, []).append(_attempt(attempt))
    return [
        {
            "id": str(d.pk),
            "type": d.event_type,
            "status": d.status,
            "url": d.url,
            "created_at": d.created_at,
            "delivered_at": d.delivered_at,
            "next_attempt_at": d.next_attempt_at,
            "last_error": d.last_error or None,
            "table_id": str(d.table_id) if d.table_id else None,
            "attempts": attempts.get(d.pk, []),
        }
        for d in deliveries
    ]


def deliveries_page(
    *,
    server: GameServer,
    cursor: str | None = None,
    limit: int = DELIVERIES_LIMIT_DEFAULT,
    event_type: str | None = None,
    status: str | None = None,
) -> dict[str, Any]:
    """``{"deliveries": [...], "next": cursor or null}``, newest first; ``next`` continues after the last one."""
    if event_type is not None and event_type not in events.EVENT_TYPES:
        raise InvalidInput("invalid_input", "Unknown event type.", {"type": f"One of {', '.join(events.EVENT_TYPES)}."})
    if status is not None and status not in Delivery.Status.values:
        raise InvalidInput(
            "invalid_input", "Unknown delivery status.", {"status": f"One of {', '.join(Delivery.Status.values)}."}
        )
    rows = Delivery.objects.filter(server=server)
    if event_type is not None:
        rows = rows.filter(event_type=event_type)
    if status is not None:
        rows = rows.filter(status=status)
    page, following = keyset_page(
        rows, time_field="created_at", cursor=cursor, limit=limit, newest_first=True, key=uuid.UUID
    )
    return {"deliveries": deliveries_present(page), "next": following}
