"""The tickets' collection door (docs/api.md, "Reading tickets back"): ``GET`` lists the server's tickets,
``POST`` queues one (``TicketCreateApi``, with ``Location`` on a 201)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from arena.api.schemas import ErrorOut
from infra.errors import InvalidInput
from matchmaking.api import schemas
from matchmaking.api.views import TicketCreateApi
from matchmaking.models import Ticket
from matchmaking.ticket_list import TICKETS_LIMIT_DEFAULT, TICKETS_LIMIT_MAX, tickets_page


class TicketsOut(serializers.Serializer):
    tickets = schemas.TicketOut(many=True)
    next = serializers.CharField(allow_null=True, help_text="Pass as ?cursor= for the next page; null: the end.")


class TicketsApi(TicketCreateApi):
    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        """A new ticket's 201 says where it is polled (``post`` itself, and its schema, are the parent's)."""
        if request.method == "POST" and response.status_code == 201:
            response["Location"] = reverse("matchmaking-ticket", kwargs={"ticket_id": response.data["id"]})
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(
        operation_id="matchmaking_tickets_list",
        tags=["matchmaking"],
        parameters=[
            OpenApiParameter("status", str, enum=list(Ticket.Status.values), description="Only tickets in this state."),
            OpenApiParameter("cursor", str, description="The previous page's `next`."),
            OpenApiParameter("limit", int, description=f"1 to {TICKETS_LIMIT_MAX} (default {TICKETS_LIMIT_DEFAULT})."),
        ],
        description="Your tickets, oldest first; a matched one links to the game you recorded under its table's "
        "id (`recorded_game`).",
        responses={200: TicketsOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut},
    )
    def get(self, request: Request) -> Response:
        raw = request.query_params.get("limit")
        limit = TICKETS_LIMIT_DEFAULT
        if raw is not None:
            if not (raw.isascii() and raw.isdigit() and len(raw) <= 4 and 1 <= int(raw) <= TICKETS_LIMIT_MAX):
                raise InvalidInput(
                    "invalid_input",
                    "limit is out of range.",
                    {"limit": f"Must be an integer from 1 to {TICKETS_LIMIT_MAX}."},
                )
            limit = int(raw)
        return Response(
            tickets_page(
                server=request.user,
                status=request.query_params.get("status"),
                cursor=request.query_params.get("cursor"),
                limit=limit,
            )
        )
