"""Public leaderboard reads: no key, throttled per client IP. Parse → select → respond."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import QueryDict
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.paging import window_parse
from arena.api.schemas import ErrorOut
from infra.api.caching import PublicCache
from infra.api.throttles import PublicThrottle
from infra.replica import on_replica
from leaderboards.board import DEFAULT_AROUND_LIMIT, DEFAULT_PAGE_LIMIT, MAX_LIMIT
from leaderboards.selectors import board_around, board_page, board_title
from ratings.config import elo_config
from ratings.settled import on_board

# Far beyond any board, and small enough for every store to take as an integer.


@dataclass(frozen=True)
class LeaderboardQuery:
    limit: int
    offset: int
    around: str | None


def parse_query(params: QueryDict) -> LeaderboardQuery:
    """``limit``, ``offset`` and ``around`` checked by hand: a DRF serializer costs more than the Redis read.

    Raises InvalidInput with one message per bad field.
    """
    limit, offset, around = window_parse(
        params, max_limit=MAX_LIMIT, default_page=DEFAULT_PAGE_LIMIT, default_around=DEFAULT_AROUND_LIMIT
    )
    return LeaderboardQuery(limit=limit, offset=offset, around=around)


class LeaderboardEntryOut(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 + the number of ranked players with a strictly higher Elo.")
    player = serializers.CharField()
    elo = serializers.FloatField(help_text="Rounded to 2 decimals.")
    games = serializers.IntegerField(help_text="Rated games in this game.")
    provisional = serializers.BooleanField(
        help_text='Fewer than 20 rated games (docs/ratings.md, "How settled is a rating"): shown marked.'
    )
    band = serializers.FloatField(help_text="± points, one standard deviation, as of the player's last game.")
    games_to_settle = serializers.IntegerField(help_text="Rated games until not provisional.")


class LeaderboardOut(serializers.Serializer):
    game = serializers.CharField()
    total = serializers.IntegerField(help_text="Ranked players in this game.")
    entries = LeaderboardEntryOut(many=True, help_text="Elo high to low; equal Elo by player registration order.")


GAME = OpenApiParameter(
    "game", OpenApiTypes.STR, OpenApiParameter.PATH, description="The game, e.g. wizard (docs/games.md lists them)."
)
LIMIT = OpenApiParameter(
    "limit",
    OpenApiTypes.INT,
    OpenApiParameter.QUERY,
    description=f"Entries, 1 to {MAX_LIMIT}; default {DEFAULT_PAGE_LIMIT} ({DEFAULT_AROUND_LIMIT} with around).",
)
OFFSET = OpenApiParameter(
    "offset", OpenApiTypes.INT, OpenApiParameter.QUERY, default=0, description="0-based position of the first entry."
)
AROUND = OpenApiParameter(
    "around",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    description="A player id: the window of `limit` entries centred on that player (shifted "
    "to stay inside the board). 404 player_not_found / player_not_ranked.",
)


DESCRIPTION = """\
Ranked: active (not banned) players with at least 5 rated games in the game and a rated game in the last 90 days.
Entries are ordered by Elo, highest first; equal Elo shares a rank (1, 2, 2, 4) and is listed by player
registration order. `total` is the number of ranked players.

A page: `offset` (default 0) and `limit` (1 to 200, default 50); past the end, `entries` is empty.
Around a player: `around=<player>` with `limit` (default 11) returns the window centred on that player (with an
even limit one more entry below than above), shifted to stay inside the board near the top or bottom;
`offset` is refused with it. Errors: 404 `unknown_game`, 404 `no_leaderboard` (Hanabi), 404 `player_not_found`
(no such player), 404 `player_not_ranked` (the player exists but is not on this board), 400 `invalid_input` with
`fields` for a bad `limit`, `offset` or `around`, 429 `throttled` with Retry-After.
"""


class LeaderboardApi(PublicCache, APIView):
    # The Redis board follows each rating batch within seconds (docs/architecture.md).
    cache_max_age, cache_stale_while_revalidate = 5, 30
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [PublicThrottle]

    @extend_schema(
        operation_id="leaderboards_retrieve",
        tags=["leaderboards"],
        description=DESCRIPTION,
        parameters=[GAME, LIMIT, OFFSET, AROUND],
        responses={200: LeaderboardOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut},
    )
    @on_replica  # the SQL fallback (and the 404's player lookup) read the replica when one is configured
    def get(self, request: Request, game: str) -> Response:
        title = board_title(game=game)
        query = parse_query(request.query_params)
        if query.around is not None:
            page = board_around(title=title, player=query.around, limit=query.limit)
        else:
            page = board_page(title=title, offset=query.offset, limit=query.limit)
        config = elo_config()
        entries = [{**e.as_json(), **on_board(e.games, config)} for e in page.entries]
        return Response({"game": title, "total": page.total, "entries": entries})


urlpatterns = [
    path("leaderboards/<str:game>/", LeaderboardApi.as_view(), name="leaderboards-detail"),
]
