"""Matchmaking's reads, shaped for the API: a ticket (with why it still waits), a table, a player's preferences."""
from __future__ import annotations

import uuid
from typing import Any

from django.utils import timezone

from arena.errors import NotFound
from arena.models import GameServer, is_player_id
from matchmaking import engine
from matchmaking.models import OpenSeat, Preferences, Ticket, TicketSeat


def ticket_get_for_server(*, server: GameServer, ticket_id: str) -> Ticket:
    """A game server sees only its own tickets: another server's is as unknown as a missing one."""
    try:
        key = uuid.UUID(str(ticket_id))
    except ValueError:
        key = None
    ticket = (Ticket.objects.filter(pk=key, server=server).select_related("pool", "table").first()
              if key is not None else None)
    if ticket is None:
        raise NotFound("ticket_not_found", f"No ticket {ticket_id} from this game server.")
    return ticket


def ticket_present(*, ticket: Ticket) -> dict[str, Any]:
    """The API view of a ticket (docs/api.md). A waiting ticket also says how long it has waited, the Elo gap it now
    accepts and how many tickets wait in its pool: the answer to "why is it taking so long"."""
    seats = list(TicketSeat.objects.filter(ticket=ticket).order_by("position")
                 .values_list("player__handle", flat=True))
    pool = ticket.pool
    body: dict[str, Any] = {
        "id": str(ticket.pk),
        "status": ticket.status,
        "player": seats[0],
        "party": seats[1:],
        "game": pool.title,  # the API's word for the title (docs/architecture.md#names)
        "variant": pool.variant,
        "rated": pool.rated,
        "min_players": ticket.min_players,
        "max_players": ticket.max_players,
        "request_id": ticket.request_id,
        "created_at": ticket.created_at,
    }
    if ticket.status == Ticket.Status.WAITING:
        waited = max(0.0, (timezone.now() - ticket.created_at).total_seconds())
        body["waiting"] = {
            "seconds": round(waited, 1),
            "elo_tolerance": round(engine.tolerance(waited), 1),
            "pool_waiting": OpenSeat.objects.filter(pool=pool, position=0).count(),
            "expires_in": round(max(0.0, engine.EXPIRES_AFTER - waited), 1),
        }
    if ticket.status == Ticket.Status.MATCHED and ticket.table is not None:
        body["table"] = table_present(table=ticket.table)
    return body


def table_present(*, table: Any) -> dict[str, Any]:
    return {
        "id": str(table.pk),
        "game": table.title,
        "variant": table.variant,
        "rated": table.rated,
        "players": table.players,
        "warnings": table.warnings,
        "formed_at": table.formed_at,
    }


def preferences_get(*, handle: str) -> dict[str, Any]:
    """A player's preferences; a player who never set any, or Arena has not seen yet, has the defaults (a PUT would
    create them, so a GET answers what they are until then). Only a handle that cannot be a player id is 404."""
    if not is_player_id(handle):
        raise NotFound("player_not_found", f"No player {handle!r}.")
    prefs = Preferences.objects.filter(player__handle=handle).first()
    return preferences_present(handle=handle, prefs=prefs)


def preferences_present(*, handle: str, prefs: Preferences | None) -> dict[str, Any]:
    return {
        "player": handle,
        "refuse_same_ip": prefs.refuse_same_ip if prefs else False,
        "blocked": list(prefs.blocked) if prefs else [],
    }
