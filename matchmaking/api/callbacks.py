"""A game server's own callback and deliveries (docs/api.md, "Callbacks and events"): parse, one service or
selector, present. Scope ``matchmaking``; the URL rules are the admin's (docs/security.md#pushes-to-game-servers)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.schemas import ErrorOut
from infra.errors import InvalidInput
from matchmaking import callbacks
from matchmaking.api import callback_schemas as schemas
from matchmaking.delivery_log import (
    DELIVERIES_LIMIT_DEFAULT,
    DELIVERIES_LIMIT_MAX,
    callback_present,
    deliveries_page,
    deliveries_present,
)

TAGS = ["callbacks"]


def _errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: OpenApiResponse(ErrorOut) for code in codes}


def _object(body: Any, allowed: set[str]) -> dict[str, Any]:
    if body is None or body == {}:
        return {}
    if not isinstance(body, dict):
        raise InvalidInput("invalid_input", "The body must be a JSON object.", {"body": "Must be an object."})
    unknown = sorted(str(key)[:100] for key in body.keys() - allowed)
    if unknown:
        raise InvalidInput("invalid_input", "Unknown fields; see fields.", dict.fromkeys(unknown, "Unknown field."))
    return body


def _delivery_location(delivery_id: Any) -> str:
    return reverse("deliveries-detail", kwargs={"delivery_id": str(delivery_id)})


class CallbackApi(APIView):
    required_scope = "matchmaking"  # docs/security.md#game-server-keys-and-scopes

    @extend_schema(
        operation_id="callback_retrieve", tags=TAGS, responses={200: schemas.CallbackOut, **_errors(401, 403, 404)}
    )
    def get(self, request: Request) -> Response:
        return Response(callback_present(callback=callbacks.callback_get(server=request.user)))

    @extend_schema(
        operation_id="callback_update",
        tags=TAGS,
        request=schemas.CallbackIn,
        description="Sets where your pushes go. The first PUT creates the callback and answers 201 "
        "with its `secret`, shown this once; a later PUT changes the URL or the switch (200, "
        "no secret).",
        responses={201: schemas.CallbackOut, 200: schemas.CallbackOut, **_errors(400, 401, 403)},
    )
    def put(self, request: Request) -> Response:
        body = _object(request.data, {"url", "enabled"})
        enabled = body.get("enabled", True)
        if not isinstance(enabled, bool):
            raise InvalidInput("invalid_input", "enabled must be true or false.", {"enabled": "Must be a boolean."})
        done = callbacks.callback_set(server=request.user, url=body.get("url"), enabled=enabled)
        answer = Response(
            callback_present(callback=done.callback, secret=done.secret),
            status=status.HTTP_201_CREATED if done.created else status.HTTP_200_OK,
        )
        if done.created:
            answer["Location"] = reverse("callback")
        return answer

    @extend_schema(
        operation_id="callback_destroy",
        tags=TAGS,
        description="No more pushes: the pending ones are abandoned (listed, never sent).",
        responses={204: None, **_errors(401, 403, 404)},
    )
    def delete(self, request: Request) -> Response:
        callbacks.callback_delete(server=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CallbackRotateApi(APIView):
    required_scope = "matchmaking"

    @extend_schema(
        operation_id="callback_rotate_secret",
        tags=TAGS,
        request=schemas.RotateSecretIn,
        description="A new secret, shown this once. The old one keeps signing beside it (one more `v1=` "
        "in `X-Arena-Signature`) for `previous_secret_expires_in` seconds (default a day).",
        responses={200: schemas.CallbackOut, **_errors(400, 401, 403, 404)},
    )
    def post(self, request: Request) -> Response:
        body = _object(request.data, {"previous_secret_expires_in"})
        overlap = body.get("previous_secret_expires_in", callbacks.ROTATION_OVERLAP_DEFAULT)
        if isinstance(overlap, float) and overlap.is_integer():  # JSON Schema's integer: 60.0 is 60
            overlap = int(overlap)
        if (
            not isinstance(overlap, int)
            or isinstance(overlap, bool)
            or not 0 <= overlap <= callbacks.ROTATION_OVERLAP_MAX
        ):
            raise InvalidInput(
                "invalid_input",
                "previous_secret_expires_in is out of range.",
                {"previous_secret_expires_in": f"Must be whole seconds from 0 to {callbacks.ROTATION_OVERLAP_MAX}."},
            )
        issued = callbacks.callback_rotate_for_server(server=request.user, overlap_seconds=overlap)
        return Response(callback_present(callback=issued.callback, secret=issued.secret))


class CallbackPingApi(APIView):
    required_scope = "matchmaking"

    @extend_schema(
        operation_id="callback_ping",
        tags=TAGS,
        request=None,
        description="Sends a signed `ping` event to the callback now: check your verification against "
        "it. Answers 202 with its delivery (in embedded mode already attempted).",
        responses={202: schemas.DeliveryOut, **_errors(401, 403, 404, 409)},
    )
    def post(self, request: Request) -> Response:
        delivery = callbacks.callback_ping(server=request.user)
        delivery.refresh_from_db()
        answer = Response(deliveries_present([delivery])[0], status=status.HTTP_202_ACCEPTED)
        answer["Location"] = _delivery_location(delivery.pk)
        return answer


LIMIT = OpenApiParameter("limit", int, description=f"1 to {DELIVERIES_LIMIT_MAX} (default {DELIVERIES_LIMIT_DEFAULT})")
CURSOR = OpenApiParameter("cursor", str, description="The previous page's `next`.")
TYPE = OpenApiParameter("type", str, enum=list(schemas.events.EVENT_TYPES), description="Only this event type.")
STATUS = OpenApiParameter("status", str, enum=["pending", "delivered", "failed", "abandoned"])


class DeliveriesApi(APIView):
    required_scope = "matchmaking"

    @extend_schema(
        operation_id="deliveries_list",
        tags=TAGS,
        parameters=[LIMIT, CURSOR, TYPE, STATUS],
        description="Your pushes, newest first, each with every attempt's status code and timing.",
        responses={200: schemas.DeliveriesOut, **_errors(400, 401, 403)},
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        raw = params.get("limit")
        limit = DELIVERIES_LIMIT_DEFAULT
        if raw is not None:
            if not (raw.isascii() and raw.isdigit() and len(raw) <= 4 and 1 <= int(raw) <= DELIVERIES_LIMIT_MAX):
                raise InvalidInput(
                    "invalid_input",
                    "limit is out of range.",
                    {"limit": f"Must be an integer from 1 to {DELIVERIES_LIMIT_MAX}."},
                )
            limit = int(raw)
        return Response(
            deliveries_page(
                server=request.user,
                cursor=params.get("cursor"),
                limit=limit,
                event_type=params.get("type"),
                status=params.get("status"),
            )
        )


class DeliveryDetailApi(APIView):
    required_scope = "matchmaking"

    @extend_schema(
        operation_id="deliveries_retrieve", tags=TAGS, responses={200: schemas.DeliveryOut, **_errors(401, 403, 404)}
    )
    def get(self, request: Request, delivery_id: str) -> Response:
        delivery = callbacks.delivery_for_server(server=request.user, delivery_id=delivery_id)
        return Response(deliveries_present([delivery])[0])


class DeliveryRedeliverApi(APIView):
    required_scope = "matchmaking"

    @extend_schema(
        operation_id="deliveries_redeliver",
        tags=TAGS,
        request=None,
        description="Sends the same event again (same id: drop it if you had it) to the callback's URL "
        "now, with a fresh allowance of attempts; a delivered one too.",
        responses={202: schemas.DeliveryOut, **_errors(401, 403, 404, 409)},
    )
    def post(self, request: Request, delivery_id: str) -> Response:
        delivery = callbacks.delivery_redeliver(server=request.user, delivery_id=delivery_id)
        delivery.refresh_from_db()
        answer = Response(deliveries_present([delivery])[0], status=status.HTTP_202_ACCEPTED)
        answer["Location"] = _delivery_location(delivery.pk)
        return answer
