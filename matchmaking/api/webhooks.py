"""Every push is an event (matchmaking/events.py), each type described as an OpenAPI 3.1 webhook
(``SPECTACULAR_SETTINGS["WEBHOOKS"]``): what a game server's receiver gets, its headers and what its answer means
(docs/api.md "Events").

drf-spectacular 0.28 builds a webhook's body and answers from ``extend_schema`` but drops its ``parameters``, so
the three headers are added by ``with_push_headers``, a postprocessing hook.
"""

from typing import Any

from drf_spectacular.utils import OpenApiResponse, OpenApiWebhook, extend_schema

from matchmaking import events
from matchmaking.api.callback_schemas import ENVELOPES

HEADERS = [
    {
        "name": "X-Arena-Signature",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": 't=<unix time>,v1=<hex HMAC-SHA256 of "<t>.<body>">, and a second v1= while a rotated secret '
        "overlaps.",
    },
    {
        "name": "X-Arena-Delivery",
        "in": "header",
        "required": True,
        "schema": {"type": "string", "format": "uuid"},
        "description": "The delivery's id (the envelope's id), the same on every retry: drop duplicates.",
    },
    {
        "name": "Arena-Event",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "The event's type, as in the envelope's type: route on it before parsing.",
    },
]

_VERIFY = (
    "POSTed to your callback URL (PUT /api/v1/callback/; https, a public address). Verify `X-Arena-Signature` "
    'over the raw body before anything else: `t=<unix time>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the '
    "callback secret>`, one `v1=` per valid secret while a rotated secret overlaps; accept if any `v1` matches "
    "(constant-time compare) and `t` is within 300 s of your clock (docs/api.md has the snippet in Python and "
    "JavaScript). Drop a duplicate by the envelope's `id` (= `X-Arena-Delivery`). Redirects are never followed, "
    "and each attempt must be answered within the deadline (MATCHMAKING_PUSH_TIMEOUT, at most 10 s)."
)

_SUMMARIES = {
    events.TABLE_FORMED: "A table seating your tickets was formed",
    events.TICKET_EXPIRED: "One of your tickets expired unmatched (10 minutes of waiting)",
    events.TICKET_CANCELLED: "One of your tickets was cancelled (your DELETE, or its player banned)",
    events.PLAYER_WARNED: "A moderator warned one of your players",
    events.TOURNAMENT_TABLE_FORMED: "A tournament table was formed for your players",
    events.PING: "A test event you asked for (POST /api/v1/callback/ping/)",
}


def _webhook(event_type: str) -> OpenApiWebhook:
    return OpenApiWebhook(
        name=event_type,
        decorator=extend_schema(
            summary=_SUMMARIES[event_type],
            description=_VERIFY,
            request=ENVELOPES[event_type],
            responses={
                200: OpenApiResponse(description="Any 2xx: delivered, never sent again (unless you ask to redeliver)."),
                500: OpenApiResponse(
                    description="Anything else (a 3xx included), no answer or a timeout: retried "
                    "after 2, 4, 8 ... s, MATCHMAKING_PUSH_ATTEMPTS attempts in all."
                ),
            },
        ),
    )


# One webhook per event type (SPECTACULAR_SETTINGS["WEBHOOKS"] lists this module's WEBHOOKS).
table_formed = _webhook(events.TABLE_FORMED)
ticket_expired = _webhook(events.TICKET_EXPIRED)
ticket_cancelled = _webhook(events.TICKET_CANCELLED)
player_warned = _webhook(events.PLAYER_WARNED)
tournament_table_formed = _webhook(events.TOURNAMENT_TABLE_FORMED)
ping = _webhook(events.PING)
NAME = events.TABLE_FORMED


def with_push_headers(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: the push's headers on every webhook operation."""
    for hook in result.get("webhooks", {}).values():
        operation = hook.get("post")
        if operation is not None:
            operation["parameters"] = [dict(header) for header in HEADERS]
    return result
