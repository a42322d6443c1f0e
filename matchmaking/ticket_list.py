"""A game server's tickets listed (``GET /api/v1/matchmaking/tickets/?status=waiting``, docs/api.md "Reading
tickets back"), and the link from a formed table to the game recorded from it.

A table links to a game when the server recorded the game under the table's id (``table_id`` = the table's
``id``): the one id both sides already hold, so no new field is needed on either. The list is the ticket's own
view (``selectors.ticket_present``) in a fixed number of queries per page: the tickets with their pools and tables,
their seats, the pools' waiting counts and the recorded games; a waiting ticket's ``min_reputation`` breakdown is
its own GET's (it loads the whole pool).
"""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from typing import Any

from django.db.models import Count
from django.utils import timezone

from arena.models import GameServer
from infra.api.cursors import cursor_invalid
from infra.errors import InvalidInput
from matchmaking.models import OpenSeat, Ticket, TicketSeat
from matchmaking.selectors import recorded_games, table_present, waiting_figures

TICKETS_LIMIT_DEFAULT = 50
TICKETS_LIMIT_MAX = 100


def tickets_page(
    *, server: GameServer, status: str | None = None, cursor: str | None = None, limit: int = TICKETS_LIMIT_DEFAULT
) -> dict[str, Any]:
    """``{"tickets": [...], "next": cursor or null}``: the server's tickets oldest first (ids are time ordered),
    of one ``status`` if given; ``next`` is the last id of a full page."""
    if status is not None and status not in Ticket.Status.values:
        raise InvalidInput(
            "invalid_input", "Unknown ticket status.", {"status": f"One of {', '.join(Ticket.Status.values)}."}
        )
    rows = Ticket.objects.filter(server=server).select_related("pool", "table")
    if status is not None:
        rows = rows.filter(status=status)
    if cursor:
        try:
            rows = rows.filter(pk__gt=uuid.UUID(cursor))
        except ValueError:
            raise cursor_invalid() from None
    page = list(rows.order_by("pk")[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    return {"tickets": tickets_present(server=server, tickets=page), "next": str(page[-1].pk) if more else None}


def tickets_present(*, server: GameServer, tickets: list[Ticket]) -> list[dict[str, Any]]:
    seats: dict[Any, list[str]] = defaultdict(list)
    for ticket_id, handle in (
        TicketSeat.objects.filter(ticket_id__in=[t.pk for t in tickets])
        .order_by("ticket_id", "position")
        .values_list("ticket_id", "player__handle")
    ):
        seats[ticket_id].append(handle)
    waiting_pools = {t.pool_id for t in tickets if t.status == Ticket.Status.WAITING}
    pool_waiting = Counter(dict(_waiting_counts(waiting_pools)))
    tables = [str(t.table_id) for t in tickets if t.status == Ticket.Status.MATCHED and t.table_id]
    games = recorded_games(server_id=server.pk, table_ids=tables)
    now = timezone.now()
    out = []
    for ticket in tickets:
        handles = seats.get(ticket.pk, [])
        body: dict[str, Any] = {
            "id": str(ticket.pk),
            "status": ticket.status,
            "player": handles[0] if handles else None,
            "party": handles[1:],
            "game": ticket.pool.title,
            "variant": ticket.pool.variant,
            "rated": ticket.pool.rated,
            "min_players": ticket.min_players,
            "max_players": ticket.max_players,
            "request_id": ticket.request_id,
            "created_at": ticket.created_at,
            "min_reputation": ticket.min_reputation,
            "avoid_provisional": ticket.avoid_provisional,
        }
        if ticket.status == Ticket.Status.CANCELLED and ticket.cancel_reason:
            body["reason"] = ticket.cancel_reason
        if ticket.status == Ticket.Status.WAITING:
            body["waiting"] = waiting_figures(ticket=ticket, now=now, pool_waiting=pool_waiting[ticket.pool_id])
        if ticket.status == Ticket.Status.MATCHED and ticket.table is not None:
            body["table"] = table_present(table=ticket.table)
            body["recorded_game"] = games.get(str(ticket.table_id))
        out.append(body)
    return out


def _waiting_counts(pool_ids: set[int]) -> list[tuple[int, int]]:
    if not pool_ids:
        return []
    return list(
        OpenSeat.objects.filter(pool_id__in=pool_ids, position=0)
        .values("pool_id")
        .annotate(n=Count("pk"))
        .values_list("pool_id", "n")
    )
