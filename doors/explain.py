"""Why a rating changed: ``GET /api/v1/games/{id}/explain/``, public and throttled like the player pages.

Parse → select → respond: the explanation is ``ratings.selectors.game_explanation`` (the stored history rows and
the rules' functions, ``ratings.explain``); a void game is answered with its void, which moderation keeps
(``moderation.selectors``). Moderation sits above ratings, so this composite door lives above both (the top floor,
docs/architecture.md).
"""

from __future__ import annotations

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from arena.api.schemas import ErrorOut
from arena.models import Game
from infra.api.contract import MAX_ID
from infra.errors import NotFound
from moderation.selectors import void_of_game
from ratings.api import serializers
from ratings.api.players import PublicReadApi
from ratings.selectors import game_explanation

GAME_ID = OpenApiParameter("game_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The recorded game's id.")


class GameExplainApi(PublicReadApi):
    @extend_schema(
        operation_id="games_explain",
        tags=["players"],
        parameters=[GAME_ID],
        responses={200: serializers.ExplanationOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut},
    )
    def get(self, request: Request, game_id: int) -> Response:
        if game_id > MAX_ID:  # no id is that large; the selector's ``pk__in`` would overflow the database's integer
            raise NotFound("game_not_found", f"No game {game_id}.")
        found = game_explanation(game_id=game_id)
        if found["status"] == Game.Status.VOID:
            found["void"] = void_of_game(game_id=game_id, title=found["title"])
        return Response(found)


urlpatterns = [
    path("games/<int:game_id>/explain/", GameExplainApi.as_view(), name="games-explain"),
]
