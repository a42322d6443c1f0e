"""The rating economy of one title (docs/api.md, "The rating economy"): staff-scoped, parse → read → respond.

A key with the ``staff`` scope reads it (an operator's dashboard, not a game server's business); moderators see
the same figures on the panel's economy page (``backoffice``), which calls the same service.
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.schemas import ErrorOut
from arena.games import get_game
from infra.errors import InvalidInput
from ratings import economy, ledger

GAME = OpenApiParameter(
    "game", OpenApiTypes.STR, OpenApiParameter.PATH, description="The game, e.g. wizard (docs/games.md lists them)."
)
DAYS = OpenApiParameter(
    "days",
    OpenApiTypes.INT,
    OpenApiParameter.QUERY,
    default=30,
    description=f"UTC days back, today included: 1 to {economy.MAX_DAYS}.",
)


class EconomyQueryIn(serializers.Serializer):
    days = serializers.IntegerField(required=False, default=30, min_value=1, max_value=economy.MAX_DAYS)


def _by_source(help_text: str) -> serializers.DictField:
    return serializers.DictField(child=serializers.FloatField(), help_text=help_text)


class EconomyDayOut(serializers.Serializer):
    day = serializers.DateField()
    active_players = serializers.IntegerField(
        allow_null=True,
        help_text="Players with a rated game in the 90 days before the day's last snapshot; null without a snapshot.",
    )
    mean = serializers.FloatField(allow_null=True, help_text="Mean Elo of the active players, 2 decimals.")
    median = serializers.FloatField(allow_null=True, help_text="Median Elo of the active players, 2 decimals.")
    created = _by_source("Points created per source that day (sum of the positive parts).")
    destroyed = _by_source("Points destroyed per source that day (sum of the negative parts, negative).")
    net = serializers.FloatField(
        help_text="created + destroyed over every source: how far the day moved the "
        "title's ratings, all players together."
    )


class EconomyTotalsOut(serializers.Serializer):
    created = _by_source("Over the period, per source.")
    destroyed = _by_source("Over the period, per source.")
    net = serializers.FloatField()


class EconomyOut(serializers.Serializer):
    game = serializers.CharField()
    days = serializers.IntegerField()
    sources = serializers.ListField(child=serializers.CharField(), help_text="Every ledger source, in order.")
    entries = EconomyDayOut(many=True, help_text="One per UTC day, oldest first, today last.")
    totals = EconomyTotalsOut()


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def economy_present(*, title: str, days: list[economy.EconomyDay]) -> dict[str, Any]:
    """The answer: ledger figures unrounded (so they add up to the last digit), population figures to 2 decimals."""
    totals: dict[str, list[float]] = {}
    entries = []
    for day in days:
        for source, flow in day.flows.items():
            total = totals.setdefault(source, [0.0, 0.0])
            total[0] += flow.created
            total[1] += flow.destroyed
        entries.append(
            {
                "day": day.day,
                "active_players": day.active,
                "mean": _round(day.mean),
                "median": _round(day.median),
                "created": {s: f.created for s, f in day.flows.items() if f.created},
                "destroyed": {s: f.destroyed for s, f in day.flows.items() if f.destroyed},
                "net": day.net,
            }
        )
    return {
        "game": title,
        "days": len(days),
        "sources": list(ledger.SOURCES),
        "entries": entries,
        "totals": {
            "created": {s: c for s, (c, _) in totals.items() if c},
            "destroyed": {s: d for s, (_, d) in totals.items() if d},
            "net": sum(c + d for c, d in totals.values()),
        },
    }


class EconomyApi(APIView):
    required_scope = "staff"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(
        operation_id="titles_economy",
        tags=["titles"],
        parameters=[GAME, DAYS],
        responses={200: EconomyOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut},
    )
    def get(self, request: Request, game: str) -> Response:
        title = get_game(game).title  # UnknownGame: 404 unknown_game (infra/api/errors.py)
        query = EconomyQueryIn(data=request.query_params)
        if not query.is_valid():
            fields = {name: " ".join(str(e) for e in errors) for name, errors in query.errors.items()}
            raise InvalidInput("invalid_input", "Some query parameters are invalid; see fields.", fields)
        days = economy.economy_read(title=title, days=query.validated_data["days"])
        return Response(economy_present(title=title, days=days))


urlpatterns = [
    path("titles/<str:game>/economy/", EconomyApi.as_view(), name="titles-economy"),
]
