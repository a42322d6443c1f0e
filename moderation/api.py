"""``POST /api/v1/reports/``: a game server files a player's report (docs/api.md "Reports"). Parse, act, render."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import path, reverse
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.game_payload import storable_text
from arena.api.schemas import ErrorOut
from arena.models import PLAYER_ID_PATTERN, is_player_id
from infra.errors import InvalidInput
from moderation.models import Report
from moderation.selectors import report_get_for_server
from moderation.services.reports import report_create

MAX_ACCUSED = 20
MAX_DESCRIPTION = 4000
MAX_INT = 2**31 - 1
REASONS = set(Report.Reason.values)


@dataclass(frozen=True)
class ReportIn:
    reporter: str
    accused: list[str]
    reasons: list[str]
    game_id: int | None
    move: int | None
    description: str


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_INT


def parse_report(data: Any) -> ReportIn:
    """Types and sizes, each bad field named; existence and the kingmaking rule are the service's."""
    if not isinstance(data, dict):
        raise InvalidInput("invalid_input", "Send a JSON object.", {"body": "Must be an object."})
    fields: dict[str, str] = {}
    unknown = sorted(set(data) - {"reporter", "accused", "reason", "game_id", "move", "description"})
    for key in unknown:
        fields[str(key)[:64]] = "Unknown field."
    reporter = data.get("reporter")
    if not is_player_id(reporter):
        fields["reporter"] = "Required: a player id."
    accused = data.get("accused")
    if isinstance(accused, str):
        accused = [accused]
    if not isinstance(accused, list) or not 1 <= len(accused) <= MAX_ACCUSED:
        fields["accused"] = f"Required: a list of 1 to {MAX_ACCUSED} player ids."
        accused = []
    for index, handle in enumerate(accused):
        if not is_player_id(handle):
            fields[f"accused.{index}"] = "Must be a player id."
    reasons = _reasons(data, fields)
    game_id, move = data.get("game_id"), data.get("move")
    if game_id is not None and not _int(game_id):
        fields["game_id"] = "Must be a game id."
    if move is not None and not _int(move):
        fields["move"] = "Must be a move number (an integer >= 0)."
    description = data.get("description", "")
    if description is None:
        description = ""
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION or not storable_text(description):
        fields["description"] = f"Must be text of at most {MAX_DESCRIPTION} characters, no NUL or unpaired surrogate."
    if fields:
        raise InvalidInput("invalid_input", "Some values are missing or invalid; see fields.", fields)
    return ReportIn(
        reporter=reporter,
        accused=list(accused),
        reasons=list(dict.fromkeys(reasons)),
        game_id=game_id,
        move=move,
        description=description,
    )


def _reasons(data: dict[str, Any], fields: dict[str, str]) -> list[str]:
    """``reason``: one reason or a list of 1 to 4 of them; a missing one, a wrong type and an unknown name are each
    said as what they are, an unknown name at its own path (``reason.1``)."""
    choices = ", ".join(sorted(REASONS))
    if "reason" not in data or data["reason"] is None:
        fields["reason"] = f"Required: one of {choices}, or a list of them."
        return []
    reason = data["reason"]
    listed = isinstance(reason, list)
    reasons = reason if listed else [reason]
    if not 1 <= len(reasons) <= len(REASONS):
        fields["reason"] = f"Must be one of {choices}, or a list of 1 to {len(REASONS)} of them."
        return []
    for index, item in enumerate(reasons):
        where = f"reason.{index}" if listed else "reason"
        if not isinstance(item, str):
            fields[where] = f"Must be a reason's name: one of {choices}."
        elif item not in REASONS:
            fields[where] = f"Unknown reason {item[:40]!r}; one of {choices}."
    return reasons


def present(report: Report) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": report.pk,
        "reporter": report.reporter.handle,
        "accused": sorted(report.accused.values_list("handle", flat=True)),
        "reason": report.reason,
        "reasons": report.reasons,
        "game_id": report.game_id,
        "move": report.move,
        "status": report.status,
        "created_at": report.created_at.isoformat().replace("+00:00", "Z"),
        "description": report.description,  # echoed as filed (issue 26 §2), "" when none was given
    }
    if report.answer:
        body["answer"] = report.answer
    return body


ReportOut = inline_serializer(
    "ReportOut",
    {
        "id": serializers.IntegerField(),
        "reporter": serializers.CharField(),
        "accused": serializers.ListField(child=serializers.CharField()),
        "reason": serializers.CharField(),
        "reasons": serializers.ListField(child=serializers.CharField()),
        "game_id": serializers.IntegerField(allow_null=True),
        "move": serializers.IntegerField(allow_null=True),
        "status": serializers.ChoiceField(choices=Report.Status.values),
        "created_at": serializers.DateTimeField(),
        "description": serializers.CharField(allow_blank=True, help_text="As filed; empty when none was given."),
        "answer": serializers.CharField(required=False, help_text="The policy's answer when closed at once."),
    },
)
_HANDLE = {"type": "string", "pattern": rf"^{PLAYER_ID_PATTERN}$"}
_REASON = {"type": "string", "enum": sorted(REASONS)}


@extend_schema_field({"oneOf": [_REASON, {"type": "array", "items": _REASON, "minItems": 1, "maxItems": len(REASONS)}]})
class _ReasonField(serializers.JSONField):
    """One reason or a list of them (docs/api.md "Reports"): ``same_ip`` alone is answered at once."""


@extend_schema_field({"oneOf": [_HANDLE, {"type": "array", "items": _HANDLE, "minItems": 1, "maxItems": MAX_ACCUSED}]})
class _AccusedField(serializers.JSONField):
    """One player id or a list of 1 to 20 (several accounts of one person are reported together)."""


ReportIn_ = inline_serializer(
    "ReportIn",
    {
        "reporter": serializers.RegexField(rf"^{PLAYER_ID_PATTERN}\Z"),
        "accused": _AccusedField(),
        "reason": _ReasonField(),
        "game_id": serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=MAX_INT),
        "move": serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=MAX_INT),
        "description": serializers.CharField(
            required=False, allow_null=True, allow_blank=True, max_length=MAX_DESCRIPTION
        ),
    },
)


class ReportCreateApi(APIView):
    required_scope = "reports"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(
        operation_id="reports_create",
        request=ReportIn_,
        responses={201: ReportOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut},
    )
    def post(self, request: Request) -> Response:
        parsed = parse_report(request.data)
        report = report_create(
            server=request.user,
            reporter=parsed.reporter,
            accused=parsed.accused,
            reasons=parsed.reasons,
            game_id=parsed.game_id,
            move=parsed.move,
            description=parsed.description,
        )
        return Response(
            present(report),
            status=status.HTTP_201_CREATED,
            headers={"Location": reverse("reports-detail", kwargs={"report_id": report.pk})},
        )


class ReportDetailApi(APIView):
    required_scope = "reports"  # docs/security.md#game-server-keys-and-scopes: the filing door's own scope

    @extend_schema(
        operation_id="reports_retrieve",
        description="The report as filed, with its status now (open, "
        "upheld, dismissed or closed); only the server that filed it can read it.",
        responses={200: ReportOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut},
    )
    def get(self, request: Request, report_id: int) -> Response:
        return Response(present(report_get_for_server(server=request.user, report_id=report_id)))


urlpatterns = [
    path("reports/", ReportCreateApi.as_view(), name="reports-create"),
    path("reports/<int:report_id>/", ReportDetailApi.as_view(), name="reports-detail"),
]
