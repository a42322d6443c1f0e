"""The push of a formed table, described as an OpenAPI 3.1 webhook (``SPECTACULAR_SETTINGS["WEBHOOKS"]``): what a
game server's receiver gets, its headers and what its answer means (docs/matchmaking.md "Pushes").

drf-spectacular 0.28 builds a webhook's body and answers from ``extend_schema`` but drops its ``parameters``, so
the two headers are added by ``with_push_headers``, a postprocessing hook.
"""
from typing import Any

from drf_spectacular.utils import OpenApiResponse, OpenApiWebhook, extend_schema

from matchmaking.api.schemas import PushBodyOut

NAME = "table_formed"
HEADERS = [
    {"name": "X-Arena-Signature", "in": "header", "required": True, "schema": {"type": "string"},
     "description": "t=<unix time>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">, and a second v1= while a rotated secret "
                    "overlaps."},
    {"name": "X-Arena-Delivery", "in": "header", "required": True, "schema": {"type": "string", "format": "uuid"},
     "description": "The delivery's id, the same on every retry: drop duplicates."},
]

table_formed = OpenApiWebhook(
    name=NAME,
    decorator=extend_schema(
        summary="A table seating your tickets was formed",
        description=(
            "POSTed to the callback URL a superuser set for your game server (https, a public address). Verify "
            "`X-Arena-Signature` over the raw body before anything else: `t=<unix time>,v1=<hex HMAC-SHA256 of "
            "\"<t>.<body>\" under the callback secret>`, one `v1=` per valid secret while a rotated secret "
            "overlaps; accept if any `v1` matches (constant-time compare) and `t` is within 300 s of your clock. "
            "Drop a duplicate by `X-Arena-Delivery`. Redirects are never followed, and each attempt must be "
            "answered within the deadline (MATCHMAKING_PUSH_TIMEOUT, at most 10 s)."),
        request=PushBodyOut,
        responses={
            200: OpenApiResponse(description="Any 2xx: delivered, never sent again."),
            500: OpenApiResponse(description="Anything else (a 3xx included), no answer or a timeout: retried "
                                             "after 2, 4, 8 ... s, MATCHMAKING_PUSH_ATTEMPTS attempts in all."),
        },
    ),
)


def with_push_headers(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: the push's headers on its webhook operation."""
    operation = result.get("webhooks", {}).get(NAME, {}).get("post")
    if operation is not None:
        operation["parameters"] = [dict(header) for header in HEADERS]
    return result
