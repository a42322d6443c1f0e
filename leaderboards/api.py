"""Public leaderboard reads: no key, throttled per client IP. Parse → select → respond."""
from __future__ import annotations

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.schemas import ErrorOut
from arena.api.throttles import PublicThrottle
from arena.errors import InvalidInput
from leaderboards.board import DEFAULT_AROUND_LIMIT, DEFAULT_PAGE_LIMIT, MAX_LIMIT
from leaderboards.selectors import board_around, board_page, board_title

# Far beyond any board, and small enough for every store to take as an integer.
_MAX_OFFSET = 1_000_000_000


class LeaderboardQueryIn(serializers.Serializer):
    limit = serializers.IntegerField(required=False, min_value=1, max_value=MAX_LIMIT)
    offset = serializers.IntegerField(required=False, min_value=0, max_value=_MAX_OFFSET)
    around = serializers.RegexField(r"^[A-Za-z0-9_.\-]{1,64}$", required=False,
                                    error_messages={"invalid": "Must be a player id."})

    def validate(self, attrs: dict) -> dict:
        if "around" in attrs and "offset" in attrs:
            raise serializers.ValidationError({"offset": "Not allowed with around: the window places itself."})
        return attrs


class LeaderboardEntryOut(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 + the number of ranked players with a strictly higher Elo.")
    player = serializers.CharField()
    elo = serializers.FloatField(help_text="Rounded to 2 decimals.")
    games = serializers.IntegerField(help_text="Rated games in this game.")


class LeaderboardOut(serializers.Serializer):
    game = serializers.CharField()
    total = serializers.IntegerField(help_text="Ranked players in this game.")
    entries = LeaderboardEntryOut(many=True, help_text="Elo high to low; equal Elo by player registration order.")


GAME = OpenApiParameter("game", OpenApiTypes.STR, OpenApiParameter.PATH, description="Game slug, e.g. wizard.")
LIMIT = OpenApiParameter("limit", OpenApiTypes.INT, OpenApiParameter.QUERY,
                         description=f"Entries, 1 to {MAX_LIMIT}; default {DEFAULT_PAGE_LIMIT} "
                                     f"({DEFAULT_AROUND_LIMIT} with around).")
OFFSET = OpenApiParameter("offset", OpenApiTypes.INT, OpenApiParameter.QUERY, default=0,
                          description="0-based position of the first entry.")
AROUND = OpenApiParameter("around", OpenApiTypes.STR, OpenApiParameter.QUERY,
                          description="A player id: the window of `limit` entries centred on that player (shifted "
                                      "to stay inside the board). 404 player_not_found / player_not_ranked.")


class LeaderboardApi(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [PublicThrottle]

    @extend_schema(operation_id="leaderboards_retrieve", tags=["leaderboards"],
                   parameters=[GAME, LIMIT, OFFSET, AROUND],
                   responses={200: LeaderboardOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut})
    def get(self, request: Request, game: str) -> Response:
        title = board_title(game=game)
        query = LeaderboardQueryIn(data=request.query_params)
        if not query.is_valid():
            fields = {name: " ".join(str(e) for e in errors) for name, errors in query.errors.items()}
            raise InvalidInput("invalid_input", "Some query parameters are invalid; see fields.", fields)
        params = query.validated_data
        if "around" in params:
            limit = params.get("limit", DEFAULT_AROUND_LIMIT)
            page = board_around(title=title, player=params["around"], limit=limit)
        else:
            limit = params.get("limit", DEFAULT_PAGE_LIMIT)
            page = board_page(title=title, offset=params.get("offset", 0), limit=limit)
        return Response({"game": title, "total": page.total, "entries": [e.as_json() for e in page.entries]})


urlpatterns = [
    path("leaderboards/<str:game>/", LeaderboardApi.as_view(), name="leaderboards-detail"),
]
