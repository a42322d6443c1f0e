"""Limits on the two public requests that cost more than a page read (issue 25 §2, docs/security.md).

- ``ExplainThrottle``: a history page with ``?explain=true`` costs about 30 ms of CPU (each change's explanation),
  many times a plain page; it has its own, lower rate per client network, ``PUBLIC_EXPLAIN_THROTTLE_RATE``
  (``120/min``), counted beside the public rate. Without ``explain`` it counts nothing.
- ``FailedAuthMiddleware``: every 401 under /api/ (a missing, malformed, unknown or revoked key) is a database
  lookup and a guess at a key. A client network's 401s are counted; past ``API_FAILED_AUTH_RATE`` (``60/min``)
  its next API request that carries an ``Authorization`` header is 429 ``throttled`` before any lookup, until the
  window ends. Requests without that header (the public reads) are not held back by it.

Both count in the cache under a keyed hash of the client's network (``hash_client_network``), never an address,
and fail open while Redis is unreachable, like the other throttles.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from redis.exceptions import RedisError
from rest_framework.throttling import BaseThrottle

from infra.api.throttles import PublicThrottle, parse_rate
from infra.hashing import hash_client_network

TRUE = {"1", "true", "yes", "on"}


class ExplainThrottle(PublicThrottle):
    scope = "explain"

    def rate(self) -> tuple[int, int] | None:
        rate = settings.PUBLIC_EXPLAIN_THROTTLE_RATE
        return None if rate is None else parse_rate(rate)

    def allow_request(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        if str(request.query_params.get("explain", "")).lower() not in TRUE:
            return True
        return super().allow_request(request, view)


def _window_key(request: HttpRequest, window: int) -> tuple[str, float, int]:
    now = time.time()
    slot = int(now // window)
    network = hash_client_network(BaseThrottle().get_ident(request) or "unknown")
    return f"throttle:failed-auth:{network}:{window}:{slot}", now, slot


class FailedAuthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rate = settings.API_FAILED_AUTH_RATE
        if rate is None or not request.path.startswith("/api/"):
            return self.get_response(request)
        limit, window = parse_rate(rate)
        key, now, slot = _window_key(request, window)
        try:
            if "HTTP_AUTHORIZATION" in request.META and (cache.get(key) or 0) >= limit:
                wait = max(int((slot + 1) * window - now), 1)
                body = {
                    "error": {
                        "code": "throttled",
                        "message": f"Too many failed authentications from this network; try again in {wait} s.",
                    }
                }
                return JsonResponse(body, status=429, headers={"Retry-After": str(wait)})
        except (RedisError, OSError):
            return self.get_response(request)
        response = self.get_response(request)
        if response.status_code == 401:
            try:
                if not cache.add(key, 1, timeout=window + 1):
                    cache.incr(key)
            except (RedisError, OSError, ValueError):
                pass
        return response
