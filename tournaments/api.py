"""Tournament endpoints for game servers with the ``tournaments`` scope (docs/tournaments.md, "The API"): parse,
call one service or selector, render. The request and answer shapes below are for the OpenAPI schema only."""

from __future__ import annotations

from django.urls import path, reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments import selectors, services
from tournaments.models import Tournament
from tournaments.payload import parse_registration, parse_tournament

TAGS = ["tournaments"]


class TournamentIn(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    game = serializers.CharField(help_text="A title with places (not hanabi): wizard, tokaido, spades, ...")
    format = serializers.ChoiceField(
        choices=["swiss", "elimination"],
        required=False,
        default="swiss",
        help_text="swiss, or elimination: single elimination at two-seat tables (table_size 2, its default).",
    )
    rounds = serializers.IntegerField(min_value=1, max_value=30)
    table_size = serializers.IntegerField(required=False, help_text="Default: the title's recommended size.")
    starts_at = serializers.DateTimeField(help_text="Beat starts it then; POST .../start/ starts it earlier.")
    round_minutes = serializers.IntegerField(
        required=False, default=60, help_text="Each round's deadline after its pairing; no-shows lose."
    )
    min_reputation = serializers.FloatField(required=False, allow_null=True)
    rating_min = serializers.FloatField(required=False, allow_null=True, help_text="The title's Elo.")
    rating_max = serializers.FloatField(required=False, allow_null=True)
    max_players = serializers.IntegerField(required=False, allow_null=True)


class TournamentRegistrationIn(serializers.Serializer):
    player = serializers.CharField()
    ip = serializers.CharField(help_text="The player's address; only its keyed hash is kept.")


class TournamentTableOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="Name it as tournament_table when recording the game.")
    board = serializers.IntegerField()
    seats = serializers.ListField(child=serializers.CharField(), help_text="Seat order: seat 1 plays first.")
    game = serializers.IntegerField(allow_null=True, help_text="The recorded game, once there is one.")
    no_show = serializers.BooleanField()
    places = serializers.ListField(child=serializers.IntegerField(), required=False)


class TournamentRoundOut(serializers.Serializer):
    number = serializers.IntegerField()
    paired_at = serializers.DateTimeField()
    deadline = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)
    tables = TournamentTableOut(many=True)
    byes = serializers.ListField(child=serializers.CharField())


class TournamentStandingOut(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    points = serializers.IntegerField()
    buchholz = serializers.IntegerField()
    opponents_elo = serializers.FloatField()
    head_to_head = serializers.IntegerField()


class TournamentOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    status = serializers.ChoiceField(choices=["registering", "running", "finished", "cancelled"])
    round = serializers.IntegerField(help_text="The round being played; 0 before the start.")
    rounds_planned = serializers.IntegerField()
    table_size = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField())
    rounds = TournamentRoundOut(many=True)
    standings = TournamentStandingOut(many=True)
    voids = serializers.ListField(child=serializers.DictField(), help_text="What each void changed.")


CREATE_EXAMPLE = OpenApiExample(
    "A 5-round Tokaido Swiss",
    request_only=True,
    value={
        "name": "Winter Swiss",
        "game": "tokaido",
        "rounds": 5,
        "table_size": 4,
        "starts_at": "2026-12-24T18:00:00Z",
        "round_minutes": 90,
        "min_reputation": 80,
        "rating_min": 1300,
        "max_players": 64,
    },
)
ROUND_EXAMPLE = OpenApiExample(
    "Round 2",
    response_only=True,
    value={
        "number": 2,
        "paired_at": "2026-12-24T19:30:00Z",
        "deadline": "2026-12-24T21:00:00Z",
        "closed_at": None,
        "tables": [
            {
                "id": 41,
                "board": 1,
                "seats": ["ana", "bo", "cy", "dee"],
                "game": None,
                "no_show": False,
                "explanation": {
                    "score_group": {"highest": 6, "lowest": 4},
                    "repeats": [],
                    "seat_1": {"player": "ana", "first_seats_before": 0},
                    "reasons": [
                        "score group 6-4 points",
                        "no repeated table-mates",
                        "seat 1: ana, 0 first seats before (fewest at the table)",
                    ],
                },
            }
        ],
        "byes": [],
        "repeats": 0,
        "exact": True,
        "notes": [],
    },
)


class TournamentsApi(APIView):
    required_scope = "tournaments"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(
        operation_id="tournaments_create",
        tags=TAGS,
        request=TournamentIn,
        examples=[CREATE_EXAMPLE],
        responses={201: TournamentOut},
    )
    def post(self, request: Request) -> Response:
        tournament = services.tournament_create(server=request.user, data=parse_tournament(request.data))
        response = Response(selectors.tournament_present(tournament), status=status.HTTP_201_CREATED)
        response["Location"] = reverse("tournaments-detail", kwargs={"tournament_id": tournament.pk})
        return response


class TournamentDetailApi(APIView):
    required_scope = "tournaments"

    @extend_schema(operation_id="tournaments_retrieve", tags=TAGS, responses={200: TournamentOut})
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(selectors.tournament_present(_own(request, tournament_id)))


class TournamentStartApi(APIView):
    required_scope = "tournaments"

    @extend_schema(operation_id="tournaments_start", tags=TAGS, request=None, responses={200: TournamentOut})
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = services.tournament_start(tournament_id=tournament_id, server=request.user)
        return Response(selectors.tournament_present(tournament))


class PlayersApi(APIView):
    required_scope = "tournaments"

    @extend_schema(
        operation_id="tournaments_players_create",
        tags=TAGS,
        request=TournamentRegistrationIn,
        responses={201: OpenApiTypes.OBJECT, 200: OpenApiTypes.OBJECT},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        handle, ip_hash = parse_registration(request.data)
        entry, created = services.player_register(
            server=request.user, tournament_id=tournament_id, handle=handle, ip_hash=ip_hash
        )
        body = {"tournament": tournament_id, "player": handle, "status": entry.status}
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class PlayerApi(APIView):
    required_scope = "tournaments"

    @extend_schema(operation_id="tournaments_players_destroy", tags=TAGS, responses={204: None})
    def delete(self, request: Request, tournament_id: int, player: str) -> Response:
        services.player_withdraw(server=request.user, tournament_id=tournament_id, handle=player)
        return Response(status=status.HTTP_204_NO_CONTENT)


class RoundApi(APIView):
    required_scope = "tournaments"

    @extend_schema(
        operation_id="tournaments_rounds_retrieve",
        tags=TAGS,
        examples=[ROUND_EXAMPLE],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, tournament_id: int, number: int) -> Response:
        return Response(selectors.round_present(_own(request, tournament_id), number))


class StandingExplainApi(APIView):
    required_scope = "tournaments"

    @extend_schema(operation_id="tournaments_standings_explain", tags=TAGS, responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, tournament_id: int, player: str) -> Response:
        return Response(selectors.standing_explain(_own(request, tournament_id), player))


def _own(request: Request, tournament_id: int) -> Tournament:
    tournament = services.tournament_get(tournament_id=tournament_id)
    services.own_check(tournament, request.user)
    return tournament


urlpatterns = [
    path("tournaments/", TournamentsApi.as_view(), name="tournaments-create"),
    path("tournaments/<int:tournament_id>/", TournamentDetailApi.as_view(), name="tournaments-detail"),
    path("tournaments/<int:tournament_id>/start/", TournamentStartApi.as_view(), name="tournaments-start"),
    path("tournaments/<int:tournament_id>/players/", PlayersApi.as_view(), name="tournaments-players"),
    path("tournaments/<int:tournament_id>/players/<str:player>/", PlayerApi.as_view(), name="tournaments-player"),
    path("tournaments/<int:tournament_id>/rounds/<int:number>/", RoundApi.as_view(), name="tournaments-round"),
    path(
        "tournaments/<int:tournament_id>/standings/<str:player>/explain/",
        StandingExplainApi.as_view(),
        name="tournaments-explain",
    ),
]
