"""Public season reads (docs/seasons.md, docs/api.md): no key, throttled per client IP, cacheable with an ETag,
like the boards. Parse -> select -> respond."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import QueryDict
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.paging import window_parse
from arena.api.schemas import ErrorOut
from infra.api.caching import PublicCache
from infra.api.throttles import PublicThrottle
from seasons.selectors import (
    corrections_of,
    player_season,
    season_closed,
    standings_archived,
    standings_live,
    standings_live_around,
)
from seasons.services import season_open, season_title

MAX_LIMIT, DEFAULT_PAGE_LIMIT, DEFAULT_AROUND_LIMIT = 200, 50, 11


@dataclass(frozen=True)
class StandingsQuery:
    limit: int
    offset: int
    around: str | None


def parse_query(params: QueryDict) -> StandingsQuery:
    """``limit`` (1-200), ``offset``, ``around`` as the boards take them; InvalidInput names each bad field."""
    limit, offset, around = window_parse(
        params, max_limit=MAX_LIMIT, default_page=DEFAULT_PAGE_LIMIT, default_around=DEFAULT_AROUND_LIMIT
    )
    return StandingsQuery(limit=limit, offset=offset, around=around)


class LeagueOut(serializers.Serializer):
    name = serializers.CharField(help_text="bronze, silver, gold, platinum, diamond, elite (lowest first).")
    threshold = serializers.IntegerField(help_text="Season points at which the league begins.")
    size = serializers.IntegerField(help_text="Players in it now (not counting banned ones).")


class StandingOut(serializers.Serializer):
    rank = serializers.IntegerField(help_text="League first, then points (season Elo in elite); ties share a rank.")
    player = serializers.CharField()
    league = serializers.CharField(allow_null=True, help_text="null while placement games are left.")
    points = serializers.IntegerField()
    games = serializers.IntegerField(help_text="Counted games this season.")
    placement_left = serializers.IntegerField()
    season_elo = serializers.FloatField(allow_null=True, help_text="Top league only; rounded to 2 decimals.")
    relegation = serializers.BooleanField(help_text="In the bottom fifth of a league above bronze.")


class CorrectionOut(serializers.Serializer):
    player = serializers.CharField()
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class SeasonOut(serializers.Serializer):
    game = serializers.CharField()
    season = serializers.IntegerField(help_text="The season's number, 1 for the title's first.")
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    next_reset = serializers.DateTimeField(help_text="When this season closes (= ends_at).")
    leagues = LeagueOut(many=True)
    total = serializers.IntegerField()
    standings = StandingOut(many=True)


class ClosedSeasonOut(serializers.Serializer):
    game = serializers.CharField()
    season = serializers.IntegerField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField()
    leagues = LeagueOut(many=True)
    total = serializers.IntegerField()
    standings = StandingOut(many=True)
    corrections = CorrectionOut(many=True)


class OpponentOut(serializers.Serializer):
    league = serializers.CharField(help_text="The opposing side's league before the game, or placement.")
    outcome = serializers.ChoiceField(choices=["win", "tie", "loss"])
    points = serializers.IntegerField(help_text="2 (win) or 1 (tie) x the side's weight (5 + league index).")


class ResultOut(serializers.Serializer):
    game_id = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    place = serializers.IntegerField()
    sides = serializers.IntegerField()
    points = serializers.IntegerField()
    league_after = serializers.CharField(allow_null=True)
    opponents = OpponentOut(many=True)


class PlayerCorrectionOut(serializers.Serializer):
    season = serializers.IntegerField()
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class PlayerSeasonOut(serializers.Serializer):
    game = serializers.CharField()
    season = serializers.IntegerField()
    player = serializers.CharField()
    rank = serializers.IntegerField(allow_null=True)
    league = serializers.CharField(allow_null=True)
    points = serializers.IntegerField()
    games = serializers.IntegerField()
    placement_left = serializers.IntegerField()
    season_elo = serializers.FloatField(allow_null=True)
    results = ResultOut(many=True, help_text="Each counted game: its points and why, oldest first.")
    corrections = PlayerCorrectionOut(many=True, help_text="Lines from the title's closed seasons.")


GAME = OpenApiParameter("game", OpenApiTypes.STR, OpenApiParameter.PATH, description="The game, e.g. wizard.")
SEASON = OpenApiParameter("season", OpenApiTypes.INT, OpenApiParameter.PATH, description="A closed season's number.")
PLAYER = OpenApiParameter("player", OpenApiTypes.STR, OpenApiParameter.PATH, description="A player id.")
LIMIT = OpenApiParameter(
    "limit",
    OpenApiTypes.INT,
    OpenApiParameter.QUERY,
    description=f"Rows, 1 to {MAX_LIMIT}; default {DEFAULT_PAGE_LIMIT} ({DEFAULT_AROUND_LIMIT} with around).",
)
OFFSET = OpenApiParameter("offset", OpenApiTypes.INT, OpenApiParameter.QUERY, default=0)
AROUND = OpenApiParameter(
    "around",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    description="A player id: the window centred on them. 404 player_not_in_season.",
)

_ROW = {
    "rank": 1,
    "player": "ana",
    "league": "elite",
    "points": 1042,
    "games": 61,
    "placement_left": 0,
    "season_elo": 1687.25,
    "relegation": False,
}
_LEAGUES = [
    {"name": n, "threshold": t, "size": s}
    for n, t, s in (
        ("bronze", 0, 812),
        ("silver", 100, 240),
        ("gold", 250, 96),
        ("platinum", 450, 31),
        ("diamond", 700, 9),
        ("elite", 1000, 2),
    )
]
SEASON_EXAMPLE = OpenApiExample(
    "The open Wizard season",
    value={
        "game": "wizard",
        "season": 4,
        "starts_at": "2026-10-05T00:00:00Z",
        "ends_at": "2027-01-04T00:00:00Z",
        "next_reset": "2027-01-04T00:00:00Z",
        "leagues": _LEAGUES,
        "total": 1190,
        "standings": [_ROW],
    },
)
CLOSED_EXAMPLE = OpenApiExample(
    "A closed season with a correction",
    value={
        "game": "wizard",
        "season": 3,
        "starts_at": "2026-07-06T00:00:00Z",
        "ends_at": "2026-10-05T00:00:00Z",
        "closed_at": "2026-10-05T00:00:41Z",
        "leagues": _LEAGUES,
        "total": 1190,
        "standings": [_ROW],
        "corrections": [
            {
                "player": "ben",
                "text": "place 14 -> 13, points 212 -> 220: 3 games voided on 2027-02-03",
                "created_at": "2027-02-03T10:12:00Z",
            }
        ],
    },
)
PLAYER_EXAMPLE = OpenApiExample(
    "A player's season",
    value={
        "game": "wizard",
        "season": 4,
        "player": "ben",
        "rank": 17,
        "league": "silver",
        "points": 115,
        "games": 9,
        "placement_left": 0,
        "season_elo": None,
        "results": [
            {
                "game_id": 81,
                "finished_at": "2026-10-07T19:02:11Z",
                "place": 2,
                "sides": 4,
                "points": 15,
                "league_after": "silver",
                "opponents": [
                    {"league": "gold", "outcome": "loss", "points": 0},
                    {"league": "bronze", "outcome": "tie", "points": 5},
                    {"league": "placement", "outcome": "win", "points": 10},
                ],
            }
        ],
        "corrections": [],
    },
)

DESCRIPTION = """\
The open season of a game (docs/seasons.md): its number, dates, leagues with their sizes, and standings paged like
the leaderboards (`offset`/`limit`, or `around=<player>`). Errors: 404 `unknown_game`, 404 `no_season` (Hanabi),
404 `player_not_found`, 404 `player_not_in_season`, 400 `invalid_input` with `fields`, 429 `throttled`."""


class _Public(PublicCache, APIView):
    cache_max_age, cache_stale_while_revalidate = 5, 30
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [PublicThrottle]


class SeasonApi(_Public):
    @extend_schema(
        operation_id="seasons_current",
        tags=["seasons"],
        description=DESCRIPTION,
        parameters=[GAME, LIMIT, OFFSET, AROUND],
        examples=[SEASON_EXAMPLE],
        responses={200: SeasonOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut},
    )
    def get(self, request: Request, game: str) -> Response:
        title = season_title(game=game)
        query = parse_query(request.query_params)
        season = season_open(title=title)
        if query.around is not None:
            page = standings_live_around(season=season, player=query.around, limit=query.limit)
        else:
            page = standings_live(season=season, offset=query.offset, limit=query.limit)
        return Response(
            {
                "game": title,
                "season": season.number,
                "starts_at": season.starts_at,
                "ends_at": season.ends_at,
                "next_reset": season.ends_at,
                "leagues": page.leagues,
                "total": page.total,
                "standings": page.rows,
            }
        )


class ClosedSeasonApi(_Public):
    # A closed season changes only by a correction: a longer cache.
    cache_max_age, cache_stale_while_revalidate = 60, 600

    @extend_schema(
        operation_id="seasons_closed",
        tags=["seasons"],
        description="A closed season, read-only: the final standings (paged as the open season's) and "
        "the correction lines later voids wrote. 404 `season_not_found` for an open or "
        "unknown season.",
        parameters=[GAME, SEASON, LIMIT, OFFSET, AROUND],
        examples=[CLOSED_EXAMPLE],
        responses={200: ClosedSeasonOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut},
    )
    def get(self, request: Request, game: str, season: int) -> Response:
        title = season_title(game=game)
        query = parse_query(request.query_params)
        closed = season_closed(title=title, number=season)
        page = standings_archived(season=closed, offset=query.offset, limit=query.limit, around=query.around)
        return Response(
            {
                "game": title,
                "season": closed.number,
                "starts_at": closed.starts_at,
                "ends_at": closed.ends_at,
                "closed_at": closed.closed_at,
                "leagues": page.leagues,
                "total": page.total,
                "standings": page.rows,
                "corrections": corrections_of(season=closed),
            }
        )


class PlayerSeasonApi(_Public):
    @extend_schema(
        operation_id="seasons_player",
        tags=["seasons"],
        description="A player's open season: league, points, and every counted game with the points it "
        "gave and why (place, opposing sides' leagues), to check by hand; plus correction "
        "lines of closed seasons.",
        parameters=[PLAYER, GAME],
        examples=[PLAYER_EXAMPLE],
        responses={200: PlayerSeasonOut, 404: ErrorOut, 429: ErrorOut},
    )
    def get(self, request: Request, player: str, game: str) -> Response:
        title = season_title(game=game)
        return Response(player_season(title=title, player=player))


urlpatterns = [
    path("seasons/<str:game>/", SeasonApi.as_view(), name="seasons-current"),
    path("seasons/<str:game>/<int:season>/", ClosedSeasonApi.as_view(), name="seasons-closed"),
    path("players/<str:player>/seasons/<str:game>/", PlayerSeasonApi.as_view(), name="seasons-player"),
]
