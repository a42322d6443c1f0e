"""Matchmaking's writes, by use case: tickets in and out (``tickets``), passes that form tables (``passes``), and
the pushes of the formed tables (``pushes``); preferences are ``matchmaking/preferences.py``.

Every public name is importable from here, as callers did when this was one module.
"""

from matchmaking.services.passes import PassResult, pool_run, pools_run_due
from matchmaking.services.pushes import (
    deliveries_abandon,
    deliveries_overdue,
    deliveries_retry,
    delivery_claim_due,
    pushes_due,
    tables_push,
)
from matchmaking.services.tickets import (
    PARTY_MAX,
    Created,
    SeatInput,
    TicketInput,
    ticket_cancel,
    ticket_create,
    ticket_open,
    ticket_pass_on_request,
    ticket_poll,
    tickets_cancel_for_player,
    tickets_cancel_for_server,
    variant_key,
)

__all__ = [
    "PARTY_MAX",
    "Created",
    "PassResult",
    "SeatInput",
    "TicketInput",
    "deliveries_abandon",
    "deliveries_overdue",
    "deliveries_retry",
    "delivery_claim_due",
    "pool_run",
    "pools_run_due",
    "pushes_due",
    "tables_push",
    "ticket_cancel",
    "ticket_create",
    "ticket_open",
    "ticket_pass_on_request",
    "ticket_poll",
    "tickets_cancel_for_player",
    "tickets_cancel_for_server",
    "variant_key",
]
