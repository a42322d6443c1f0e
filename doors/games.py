"""Game-server endpoints for finished games: parse → record → present.

A composite door (docs/architecture.md, "The top floor"): the core records and presents the games, and each rated
game's answer carries the rating changes, which the ratings app keeps (``ratings.selectors``); ratings sit above the
core, so the answer that shows both lives above both.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api import schemas
from arena.api.game_payload import parse_game
from arena.models import Game
from arena.recording import Outcome, Recorded, game_record
from arena.selectors import game_get_for_server, games_as_committed, games_present
from doors.tournament_games import games_with_tables_record, tournament_game_record, tournament_table_take
from infra.api.errors import refusal_body
from infra.api.json_budget import game_values
from infra.api.request_log import bind_games
from infra.errors import ArenaError, InvalidInput
from ratings.selectors import rating_changes_by_game

ERRORS = {code: OpenApiResponse(schemas.ErrorOut) for code in (400, 401, 403, 409)}


def _present(recorded: list[Recorded]) -> list[dict[str, Any]]:
    games = games_as_committed([r.game for r in recorded])
    return _with_changes(games, known={r.game.pk: r.seating for r in recorded if r.seating is not None})


def _with_changes(games: list[Game], known: dict | None = None) -> list[dict[str, Any]]:
    """The core presents the games; the ratings app adds what each rated one changed."""
    changes = rating_changes_by_game(game_ids=[g.pk for g in games if g.status == Game.Status.RATED])
    return games_present(games, known=known, changes=changes)


class GameCreateApi(APIView):
    required_scope = "games"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(
        operation_id="games_create",
        request=schemas.GameIn,
        responses={201: schemas.GameOut, 200: schemas.GameOut, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        body, table_ref = tournament_table_take(request.data)  # docs/tournaments.md: a tournament table's game
        data = parse_game(body)
        recorded = (
            game_record(server=request.user, data=data)
            if table_ref is None
            else tournament_game_record(server=request.user, data=data, table_ref=table_ref)
        )
        bind_games([recorded.game.id])
        (body,) = _present([recorded])
        return Response(body, status=status.HTTP_201_CREATED if recorded.created else status.HTTP_200_OK)


class GameDetailApi(APIView):
    required_scope = "games"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(
        operation_id="games_retrieve",
        responses={200: schemas.GameOut, 401: schemas.ErrorOut, 403: schemas.ErrorOut, 404: schemas.ErrorOut},
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = game_get_for_server(server=request.user, game_id=game_id)
        (body,) = _with_changes([game])
        return Response(body)


class GameBatchApi(APIView):
    body_limit_setting = "API_MAX_BATCH_BODY_BYTES"  # infra/api/parsers.py: a batch's own, larger cap
    values_limit_setting = "API_MAX_BATCH_JSON_VALUES"  # and its own budget of JSON values (issue 25 §1.3)
    required_scope = "games"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(
        operation_id="games_batch",
        request=schemas.GameBatchIn,
        responses={200: schemas.GameBatchOut, 400: schemas.ErrorOut, 401: schemas.ErrorOut, 403: schemas.ErrorOut},
    )
    def post(self, request: Request) -> Response:
        games = request.data.get("games") if isinstance(request.data, dict) else None
        limit = settings.GAMES_BATCH_MAX
        if not isinstance(games, list) or not 1 <= len(games) <= limit:
            raise InvalidInput(
                "invalid_input",
                f'Send {{"games": [...]}} with 1 to {limit} games.',
                {"games": f"Must be a list of 1 to {limit} game bodies."},
            )
        unknown = sorted(str(key)[:64] for key in request.data if key != "games")
        if unknown:  # as every body refuses a field it does not know: a misspelt option must not pass silently
            raise InvalidInput(
                "invalid_input", 'The batch carries only "games".', dict.fromkeys(unknown, "Unknown field.")
            )
        parsed: list[Any] = []
        tables: list[object | None] = []  # each game's tournament_table (docs/tournaments.md), None for most
        per_game = settings.API_MAX_JSON_VALUES  # each game held to what it could be sent alone (issue 25 §1.3)
        for body in games:
            game_body, table_ref = tournament_table_take(body)
            tables.append(table_ref)
            try:
                if game_values(body, per_game) > per_game:
                    raise InvalidInput(
                        "body_too_complex",
                        f"A game holds more than {per_game} JSON values.",
                        {"body": f"More than {per_game} JSON values."},
                    )
                parsed.append(parse_game(game_body))
            except ArenaError as refusal:
                parsed.append(refusal)
        outcomes = games_with_tables_record(server=request.user, games=parsed, tables=tables)
        bind_games([outcome.game.id for outcome in outcomes if isinstance(outcome, Recorded)])
        return Response({"results": self._results(outcomes)})

    @staticmethod
    def _results(outcomes: list[Outcome]) -> list[dict[str, Any]]:
        recorded = [o for o in outcomes if isinstance(o, Recorded)]
        bodies = iter(_present(recorded)) if recorded else iter(())
        results = []
        for index, outcome in enumerate(outcomes):
            if isinstance(outcome, Recorded):
                code, body = (201 if outcome.created else 200), next(bodies)
            else:
                code, body = refusal_body(outcome)
            results.append({"index": index, "status_code": code, "body": body})
        return results
