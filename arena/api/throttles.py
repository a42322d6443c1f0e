"""Throttles of the public reads (player pages, rating history, leaderboards): no key, so per client IP."""
from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class PublicThrottle(SimpleRateThrottle):
    """Requests per client IP, at ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["public"]``; 429 with Retry-After.

    Every request is counted by IP, whoever sends it: the public reads take no key. The client IP is DRF's
    ``get_ident`` (``REMOTE_ADDR``, or ``X-Forwarded-For`` as trusted through the ``NUM_PROXIES`` setting).
    """

    scope = "public"

    def get_rate(self) -> str | None:
        # SimpleRateThrottle.THROTTLE_RATES is the setting as it was at import time; read the live setting, so
        # an overridden setting (pytest's ``settings`` fixture, override_settings) applies.
        try:
            return api_settings.DEFAULT_THROTTLE_RATES[self.scope]
        except KeyError:
            raise ImproperlyConfigured(f"Set REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['{self.scope}'].") from None

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
