"""The standard rate-limit headers (draft-ietf-httpapi-ratelimit-headers) on every answer a throttle counted,
successful ones as well as the 429s, so a client paces itself before it is refused (docs/api.md, "Limits"):

    RateLimit-Policy: "write";q=6000;w=60      the policy: its name, quota and window in seconds
    RateLimit: "write";r=5987;t=42             what is left of the quota now, and seconds until it resets

The throttles (``infra/api/throttles.py``) note what they counted on the request (``note``); the middleware
writes the headers on the way out. An answer no throttle counted (a key's reads, the health checks) carries none:
no limit applied to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse

_ATTRIBUTE = "arena_ratelimit"


@dataclass(frozen=True)
class Counted:
    policy: str
    quota: int
    window: int
    remaining: int
    reset: float  # seconds until the window ends


def note(request: Any, counted: Counted) -> None:
    """Called by a throttle with what it counted; ``request`` is DRF's or Django's."""
    setattr(getattr(request, "_request", request), _ATTRIBUTE, counted)


def headers(counted: Counted) -> dict[str, str]:
    return {
        "RateLimit-Policy": f'"{counted.policy}";q={counted.quota};w={counted.window}',
        "RateLimit": f'"{counted.policy}";r={counted.remaining};t={max(0, math.ceil(counted.reset))}',
    }


class RateLimitHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        counted = getattr(request, _ATTRIBUTE, None)
        if counted is not None:
            for name, value in headers(counted).items():
                response[name] = value
        return response
