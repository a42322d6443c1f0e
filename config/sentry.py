"""Error tracking: sentry-sdk for the web (Django) and the workers (Celery), personal data off.

Arena's requests carry what must never leave it (docs/observability.md): API keys in ``Authorization``, the
players' raw IP addresses in the bodies, the client's address. So no body is ever attached, no local variable is
sent with a frame, ``send_default_pii`` stays off (no client address, cookies or user) and ``before_send`` drops
whatever request detail is left that could carry one, whatever sentry-sdk's defaults become.
"""

from __future__ import annotations

from typing import Any

import sentry_sdk
from sentry_sdk.integrations.celery import CeleryIntegration
from sentry_sdk.integrations.django import DjangoIntegration

# Headers that may carry a key or an address.
DROPPED_HEADERS = frozenset(
    {
        "authorization",
        "cookie",
        "x-forwarded-for",
        "x-real-ip",
        "forwarded",
        "x-client-ip",
        "cf-connecting-ip",
        "true-client-ip",
    }
)


def scrub(event: dict[str, Any], hint: dict[str, Any] | None = None) -> dict[str, Any]:
    """Keep the method, URL and harmless headers of the request; drop body, cookies, environment, user address
    and the command line."""
    request = event.get("request")
    if isinstance(request, dict):
        for key in ("data", "cookies", "env"):
            request.pop(key, None)
        headers = request.get("headers")
        if isinstance(headers, dict):
            request["headers"] = {name: value for name, value in headers.items() if name.lower() not in DROPPED_HEADERS}
    extra = event.get("extra")
    if isinstance(extra, dict):
        extra.pop("sys.argv", None)  # a command line may carry a password (a broker URL, say)
    user = event.get("user")
    if isinstance(user, dict):
        user.pop("ip_address", None)
    return event


def init(*, dsn: str, environment: str | None, traces_sample_rate: float) -> None:
    sentry_sdk.init(
        dsn=dsn,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        max_request_body_size="never",
        include_local_variables=False,
        before_send=scrub,
        environment=environment,
        traces_sample_rate=traces_sample_rate,
    )
