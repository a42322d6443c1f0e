"""Game-server endpoints for matchmaking: parse → service → present. Embedded, a read or a new ticket runs a pass."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.schemas import ErrorOut
from arena.selectors import player_handle_check
from matchmaking.api import schemas
from matchmaking.api.payload import parse_preferences, parse_preferences_patch, parse_ticket
from matchmaking.preferences import preferences_set, preferences_update
from matchmaking.selectors import preferences_get, preferences_present, ticket_get_for_server, ticket_present
from matchmaking.services import ticket_cancel, ticket_open, ticket_poll


def _errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: OpenApiResponse(ErrorOut) for code in codes}


class TicketCreateApi(APIView):
    required_scope = "matchmaking"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(
        operation_id="matchmaking_tickets_create",
        tags=["matchmaking"],
        request=schemas.TicketIn,
        responses={201: schemas.TicketOut, 200: schemas.TicketOut, **_errors(400, 401, 403, 409)},
    )
    def post(self, request: Request) -> Response:
        created = ticket_open(server=request.user, data=parse_ticket(request.data))
        return Response(
            ticket_present(ticket=created.ticket),
            status=status.HTTP_201_CREATED if created.created else status.HTTP_200_OK,
        )


class TicketDetailApi(APIView):
    required_scope = "matchmaking"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(
        operation_id="matchmaking_tickets_retrieve",
        tags=["matchmaking"],
        responses={200: schemas.TicketOut, **_errors(401, 403, 404)},
    )
    def get(self, request: Request, ticket_id: str) -> Response:
        return Response(ticket_present(ticket=ticket_poll(server=request.user, ticket_id=ticket_id)))

    @extend_schema(
        operation_id="matchmaking_tickets_cancel",
        tags=["matchmaking"],
        responses={200: schemas.TicketOut, **_errors(401, 403, 404, 409)},
    )
    def delete(self, request: Request, ticket_id: str) -> Response:
        ticket = ticket_cancel(ticket=ticket_get_for_server(server=request.user, ticket_id=ticket_id))
        return Response(ticket_present(ticket=ticket))


class PreferencesApi(APIView):
    required_scope = "preferences"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(
        operation_id="players_preferences_retrieve",
        tags=["players"],
        description="The player's preferences; a player Arena has not seen yet has the defaults.",
        responses={200: schemas.PreferencesOut, **_errors(401, 403, 404)},
    )
    def get(self, request: Request, player: str) -> Response:
        return Response(preferences_get(handle=player))

    @extend_schema(
        operation_id="players_preferences_update",
        tags=["players"],
        request=schemas.PreferencesIn,
        description="A full replacement: a field left out takes its default (`refuse_same_ip` false, "
        "no one `blocked`). PATCH changes only the fields sent.",
        responses={200: schemas.PreferencesOut, **_errors(400, 401, 403, 404)},
    )
    def put(self, request: Request, player: str) -> Response:
        player_handle_check(player)
        refuse, blocked = parse_preferences(request.data)
        prefs = preferences_set(handle=player, refuse_same_ip=refuse, blocked=blocked)
        return Response(preferences_present(handle=player, prefs=prefs))

    @extend_schema(
        operation_id="players_preferences_partial_update",
        tags=["players"],
        request=schemas.PreferencesPatchIn,
        description='A partial change: only the fields sent change (`{"refuse_same_ip": false}` keeps '
        "the `blocked` list).",
        responses={200: schemas.PreferencesOut, **_errors(400, 401, 404)},
    )
    def patch(self, request: Request, player: str) -> Response:
        player_handle_check(player)
        given = parse_preferences_patch(request.data)
        prefs = preferences_update(handle=player, **given)
        return Response(preferences_present(handle=player, prefs=prefs))
