"""A player's rating history: a public read, no key, throttled per client IP. Parse → select → respond.

Both read from the replica when one is configured (``on_replica``, infra/replica.py).
"""

from __future__ import annotations

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.schemas import ErrorOut
from arena.games import get_game
from infra.api.abuse import ExplainThrottle
from infra.api.caching import PublicCache
from infra.api.throttles import PublicThrottle
from infra.errors import InvalidInput
from infra.replica import on_replica
from ratings.api import serializers
from ratings.selectors import game_explanations, player_get_by_handle, rating_history

PLAYER = OpenApiParameter("player", OpenApiTypes.STR, OpenApiParameter.PATH, description="The site's player id.")
GAME = OpenApiParameter(
    "game", OpenApiTypes.STR, OpenApiParameter.PATH, description="The game, e.g. wizard (docs/games.md lists them)."
)
LIMIT = OpenApiParameter(
    "limit", OpenApiTypes.INT, OpenApiParameter.QUERY, description="Entries per page, 1 to 200.", default=50
)
EXPLAIN = OpenApiParameter(
    "explain",
    OpenApiTypes.BOOL,
    OpenApiParameter.QUERY,
    default=False,
    description="Inline each change's explanation (as GET /games/{id}/explain/ gives it).",
)
BEFORE = OpenApiParameter(
    "before",
    OpenApiTypes.INT,
    OpenApiParameter.QUERY,
    description="Cursor: the `next` of the previous page; only older entries are returned.",
)


class PublicReadApi(PublicCache, APIView):
    """A player page changes when one of the player's games is rated: seconds after it is recorded."""

    cache_max_age, cache_stale_while_revalidate = 5, 30
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [PublicThrottle]


class PlayerHistoryApi(PublicReadApi):
    # A page of history grows only at its newest end, and older pages (``before=``) never change.
    cache_max_age, cache_stale_while_revalidate = 10, 60
    # ?explain=true has its own lower rate beside the public one (infra/api/abuse.py, issue 25 §2).
    throttle_classes = [*PublicReadApi.throttle_classes, ExplainThrottle]

    @extend_schema(
        operation_id="players_history",
        tags=["players"],
        parameters=[PLAYER, GAME, LIMIT, BEFORE, EXPLAIN],
        responses={200: serializers.HistoryOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut},
    )
    @on_replica
    def get(self, request: Request, player: str, game: str) -> Response:
        title = get_game(game).title  # UnknownGame: 404 unknown_game (infra/api/errors.py)
        query = serializers.HistoryQueryIn(data=request.query_params)
        if not query.is_valid():
            fields = {name: " ".join(str(e) for e in errors) for name, errors in query.errors.items()}
            raise InvalidInput("invalid_input", "Some query parameters are invalid; see fields.", fields)
        found = player_get_by_handle(handle=player)
        params = dict(query.validated_data)
        explained = params.pop("explain", False)
        history = rating_history(player=found, title=title, **params)
        if explained:
            # Each change with its own seat's explanation (docs/api.md): four more queries for the whole page.
            by_game = game_explanations(game_ids=[e["game_id"] for e in history["entries"] if e["game_id"]])
            for entry in history["entries"]:
                entry["explanation"] = seat_explanation(by_game.get(entry["game_id"]), player)
        return Response(history)


def seat_explanation(game: dict | None, handle: str) -> dict | None:
    """The seat of ``handle`` in a game's explanation, with the game-wide figures beside it; None for a reset."""
    if game is None or "seats" not in game:
        return None
    seat = next(s for s in game["seats"] if s["player"] == handle)
    shared = {key: value for key, value in game.items() if key not in ("seats", "game", "status")}
    return {**shared, **seat}


urlpatterns = [
    path("players/<str:player>/history/<str:game>/", PlayerHistoryApi.as_view(), name="players-history"),
]
