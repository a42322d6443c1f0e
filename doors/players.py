"""A player's page: ``GET /api/v1/players/{player}/``, public, throttled per client IP. Parse → select → respond.

A composite door (docs/architecture.md, "The top floor"): the profile and ratings are the ratings app's
(``ratings.selectors.player_profile``), each game's board rank and "why not on the board" the leaderboards'
(``leaderboards.selectors``). Leaderboards sit above ratings, so the page that shows both lives above both.
"""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from arena.api.schemas import ErrorOut
from infra.replica import on_replica
from leaderboards.selectors import not_ranked, ranks_of
from ratings.api import serializers
from ratings.api.players import PLAYER, PublicReadApi
from ratings.selectors import player_profile


class PlayerDetailApi(PublicReadApi):
    @extend_schema(
        operation_id="players_retrieve",
        tags=["players"],
        parameters=[PLAYER],
        responses={200: serializers.PlayerOut, 404: ErrorOut, 429: ErrorOut},
    )
    @on_replica
    def get(self, request: Request, player: str) -> Response:
        page = player_profile(handle=player)
        player_id = page.pop("id")
        banned = page["status"] == "banned"
        # Every game's rank at once: one query from the database board, whatever the number of games; None for
        # Hanabi unasked.
        ranks = ranks_of(titles=list(page["ratings"]), player_id=player_id)
        for game, rating in page["ratings"].items():
            rating["rank"] = ranks[game]
            last_game_at = rating.pop("last_game_at")
            if rating["rank"] is None:
                # docs/api.md "Why not on the board": the same reason as the leaderboard's player_not_ranked.
                rating["not_ranked"] = not_ranked(
                    title=game, games=rating["games"], last_game_at=last_game_at, banned=banned
                )
        return Response(page)


urlpatterns = [
    path("players/<str:player>/", PlayerDetailApi.as_view(), name="players-detail"),
]
