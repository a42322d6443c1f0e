"""Game-server doors for reading its games back (docs/api.md, "Reading games back"): one game as recorded, and
the list by ``table_id`` or ``since`` (cursor paginated); a recorded game's 201 carries its ``Location``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from arena.api import schemas
from arena.game_reads import GAMES_LIMIT_DEFAULT, GAMES_LIMIT_MAX, games_page, games_recorded_present, since_parse
from arena.models import Game
from arena.selectors import game_get_for_server
from doors.games import GameCreateApi, GameDetailApi
from infra.errors import InvalidInput
from ratings.selectors import rating_changes_by_game


class RecordedPlayerOut(serializers.Serializer):
    player = serializers.CharField()
    score = serializers.IntegerField(allow_null=True)
    place = serializers.IntegerField(required=False, help_text="1 = best; absent in a cooperative game.")
    quit = serializers.BooleanField()
    team = serializers.CharField(required=False, help_text="Only in a game played in teams.")


class RecordedGameOut(schemas.GameOut):
    variant = serializers.DictField()
    finished_at = serializers.DateTimeField()
    players = RecordedPlayerOut(many=True, help_text="As reported, with each game's own fields (achievements...).")
    details = serializers.DictField()


class RecordedGamesOut(serializers.Serializer):
    games = RecordedGameOut(many=True)
    next = serializers.CharField(allow_null=True, help_text="Pass as ?cursor= for the next page; null: the end.")


def _recorded(games: list[Game]) -> list[dict]:
    changes = rating_changes_by_game(game_ids=[g.pk for g in games if g.status == Game.Status.RATED])
    return games_recorded_present(games, changes)


def _limit(raw: str | None) -> int:
    if raw is None:
        return GAMES_LIMIT_DEFAULT
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 4 and 1 <= int(raw) <= GAMES_LIMIT_MAX):
        raise InvalidInput(
            "invalid_input", "limit is out of range.", {"limit": f"Must be an integer from 1 to {GAMES_LIMIT_MAX}."}
        )
    return int(raw)


class GamesApi(GameCreateApi):
    """``POST`` records (``GameCreateApi``, with ``Location`` on a 201); ``GET`` lists the server's games."""

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        """A new game's 201 says where it is read back (``post`` itself, and its schema, are the parent's)."""
        if request.method == "POST" and response.status_code == 201:
            response["Location"] = reverse("games-detail", kwargs={"game_id": response.data["id"]})
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(
        operation_id="games_list",
        tags=["games"],
        parameters=[
            OpenApiParameter("table_id", str, description="Your own id of the table: the one game recorded under it."),
            OpenApiParameter("since", datetime, description="Only games finished at or after this time (ISO 8601)."),
            OpenApiParameter("cursor", str, description="The previous page's `next`."),
            OpenApiParameter("limit", int, description=f"1 to {GAMES_LIMIT_MAX} (default {GAMES_LIMIT_DEFAULT})."),
        ],
        description="Your games as recorded, oldest `finished_at` first (the order they are rated in).",
        responses={200: RecordedGamesOut, 400: schemas.ErrorOut, 401: schemas.ErrorOut, 403: schemas.ErrorOut},
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        table_id = params.get("table_id")
        if table_id is not None and not 1 <= len(table_id) <= 64:
            raise InvalidInput(
                "invalid_input", "table_id is 1 to 64 characters.", {"table_id": "Must be 1 to 64 characters."}
            )
        since = since_parse(params["since"]) if "since" in params else None
        games, after = games_page(
            server=request.user,
            table_id=table_id,
            since=since,
            cursor=params.get("cursor"),
            limit=_limit(params.get("limit")),
        )
        return Response({"games": _recorded(games), "next": after})


class GameReadApi(GameDetailApi):
    @extend_schema(
        operation_id="games_retrieve",
        tags=["games"],
        description="The game as recorded: what was "
        "sent (addresses and devices aside), its places, status and rating changes.",
        responses={200: RecordedGameOut, 401: schemas.ErrorOut, 403: schemas.ErrorOut, 404: schemas.ErrorOut},
    )
    def get(self, request: Request, game_id: int) -> Response:
        (body,) = _recorded([game_get_for_server(server=request.user, game_id=game_id)])
        return Response(body)
