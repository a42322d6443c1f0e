"""Game-server endpoints for matchmaking: parse → service → present. Embedded, a read or a new ticket runs a pass."""
from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.schemas import ErrorOut
from arena.errors import NotFound
from arena.models import is_player_id
from matchmaking.api import schemas
from matchmaking.api.payload import parse_preferences, parse_preferences_patch, parse_ticket
from matchmaking.models import Ticket
from matchmaking.selectors import preferences_get, preferences_present, ticket_get_for_server, ticket_present
from matchmaking.services import pool_run, preferences_set, preferences_update, ticket_cancel, ticket_create


def _errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: OpenApiResponse(ErrorOut) for code in codes}


def _pass_if_embedded(ticket: Ticket) -> Ticket:
    """docs/matchmaking.md: without real workers a pass runs when a ticket is created or read."""
    if settings.MATCHMAKING_PASS_ON_REQUEST and ticket.status == Ticket.Status.WAITING:
        pool_run(pool_id=ticket.pool_id, wait=True)
        ticket = Ticket.objects.select_related("pool", "table").get(pk=ticket.pk)  # as ticket_present reads it
    return ticket


class TicketCreateApi(APIView):
    required_scope = "matchmaking"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(operation_id="matchmaking_tickets_create", tags=["matchmaking"], request=schemas.TicketIn,
                   responses={201: schemas.TicketOut, 200: schemas.TicketOut, **_errors(400, 401, 403, 409)})
    def post(self, request: Request) -> Response:
        created = ticket_create(server=request.user, data=parse_ticket(request.data))
        ticket = _pass_if_embedded(created.ticket)
        return Response(ticket_present(ticket=ticket),
                        status=status.HTTP_201_CREATED if created.created else status.HTTP_200_OK)


class TicketDetailApi(APIView):
    required_scope = "matchmaking"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(operation_id="matchmaking_tickets_retrieve", tags=["matchmaking"],
                   responses={200: schemas.TicketOut, **_errors(401, 403, 404)})
    def get(self, request: Request, ticket_id: str) -> Response:
        ticket = _pass_if_embedded(ticket_get_for_server(server=request.user, ticket_id=ticket_id))
        return Response(ticket_present(ticket=ticket))

    @extend_schema(operation_id="matchmaking_tickets_cancel", tags=["matchmaking"],
                   responses={200: schemas.TicketOut, **_errors(401, 403, 404, 409)})
    def delete(self, request: Request, ticket_id: str) -> Response:
        ticket = ticket_cancel(ticket=ticket_get_for_server(server=request.user, ticket_id=ticket_id))
        return Response(ticket_present(ticket=ticket))


class PreferencesApi(APIView):
    required_scope = "preferences"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(operation_id="players_preferences_retrieve", tags=["players"],
                   description="The player's preferences; a player Arena has not seen yet has the defaults.",
                   responses={200: schemas.PreferencesOut, **_errors(401, 403, 404)})
    def get(self, request: Request, player: str) -> Response:
        return Response(preferences_get(handle=player))

    @extend_schema(operation_id="players_preferences_update", tags=["players"], request=schemas.PreferencesIn,
                   description="A full replacement: a field left out takes its default (`refuse_same_ip` false, "
                               "no one `blocked`). PATCH changes only the fields sent.",
                   responses={200: schemas.PreferencesOut, **_errors(400, 401, 403, 404)})
    def put(self, request: Request, player: str) -> Response:
        _known_handle(player)
        refuse, blocked = parse_preferences(request.data)
        prefs = preferences_set(handle=player, refuse_same_ip=refuse, blocked=blocked)
        return Response(preferences_present(handle=player, prefs=prefs))

    @extend_schema(operation_id="players_preferences_partial_update", tags=["players"],
                   request=schemas.PreferencesPatchIn,
                   description="A partial change: only the fields sent change (`{\"refuse_same_ip\": false}` keeps "
                               "the `blocked` list).",
                   responses={200: schemas.PreferencesOut, **_errors(400, 401, 404)})
    def patch(self, request: Request, player: str) -> Response:
        _known_handle(player)
        given = parse_preferences_patch(request.data)
        prefs = preferences_update(handle=player, **given)
        return Response(preferences_present(handle=player, prefs=prefs))


def _known_handle(player: str) -> None:
    if not is_player_id(player):
        raise NotFound("player_not_found", f"No player {player!r}.")
