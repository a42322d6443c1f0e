"""Throttles: the public reads (player pages, rating history, leaderboards) per client network, and every
key-authenticated write per key (docs/security.md, the limits). Both are fixed windows, one Redis round trip
(INCR and EXPIRE NX in one pipeline) per request."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import ImproperlyConfigured
from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from infra.api import ratelimit
from infra.hashing import hash_client_network

if TYPE_CHECKING:  # rest_framework.views imports this module (DEFAULT_THROTTLE_CLASSES) while it loads
    from rest_framework.views import APIView

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """'1200/min' -> (1200, 60)."""
    count, _, period = rate.partition("/")
    return int(count), _PERIODS[period[0]]


def _count(key: str, window: int) -> int:
    """This window's count after this request, in one Redis round trip.

    Django's ``cache.incr`` is two round trips on Redis (EXISTS, then INCR) and the window's first request two
    more (ADD, then INCR on a race). On Redis one MULTI/EXEC pipeline does all of it: INCR creates the counter at
    1, and ``EXPIRE ... NX`` gives it its lifetime only when it has none (Redis 7), so a window's counter always
    dies after it. The key and the stored integer are the cache's own (``make_and_validate_key``; Django's Redis
    serializer keeps an int as a plain integer), so ``cache.get`` reads the same count. Other caches (the
    embedded shape's local memory) keep the cache API.
    """
    backend = caches["default"]  # the backend itself: ``cache`` is a proxy, never an instance of one
    if isinstance(backend, RedisCache):
        full_key = backend.make_and_validate_key(key)
        pipe = backend._cache.get_client(full_key, write=True).pipeline(transaction=True)
        pipe.incr(full_key)
        pipe.expire(full_key, window + 1, nx=True)
        count, _ = pipe.execute()
        return int(count)
    try:
        return int(cache.incr(key))
    except ValueError:  # first request of this window
        # add() fails only when a concurrent request created the counter first: then count on it.
        return 1 if cache.add(key, 1, timeout=window + 1) else cache.incr(key)


class PublicThrottle(BaseThrottle):  # type: ignore[misc]  # DRF has no type stubs: its classes are Any
    """At most N requests per client IP per fixed window; 429 with Retry-After up to the window's end.

    A fixed-window counter costs one cache round trip (INCR) per request, where DRF's sliding log reads and
    rewrites a list of every request time: on hot public reads that list was the largest cost after Django.
    The rate is ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["public"]``, read live so overrides apply. The client
    IP is DRF's ``get_ident`` (``REMOTE_ADDR``, or ``X-Forwarded-For`` as trusted through ``NUM_PROXIES``), and
    the bucket is a keyed hash of its network (``hash_client_network``): no raw address is ever a cache key.
    """

    scope = "public"

    def __init__(self) -> None:
        self.wait_seconds = 0.0

    def rate(self) -> tuple[int, int] | None:
        """(requests, window seconds), or None when the rate is set to None (DRF's "no limit")."""
        try:
            rate = api_settings.DEFAULT_THROTTLE_RATES[self.scope]
        except KeyError:
            raise ImproperlyConfigured(f"Set REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['{self.scope}'].") from None
        return None if rate is None else parse_rate(rate)

    def bucket(self, request: Request) -> str:
        return hash_client_network(self.get_ident(request))

    def allow_request(self, request: Request, view: APIView) -> bool:
        rate = self.rate()
        if rate is None:
            return True
        limit, window = rate
        now = time.time()
        slot = int(now // window)
        key = f"throttle:{self.scope}:{self.bucket(request)}:{window}:{slot}"
        try:
            count = _count(key, window)
        except (RedisError, OSError):
            # Redis unreachable: a limit guards against floods and is not a record of anything, so it fails open;
            # failing closed would turn a Redis outage into an outage of every write (docs/security.md, limits).
            return True
        ratelimit.note(
            request, ratelimit.Counted(self.scope, limit, window, max(0, limit - count), (slot + 1) * window - now)
        )  # the RateLimit headers
        if count <= limit:
            return True
        self.wait_seconds = (slot + 1) * window - now
        return False

    def wait(self) -> float:
        return max(self.wait_seconds, 1.0)


class WriteThrottle(PublicThrottle):
    """At most ``API_WRITE_THROTTLE_RATE`` writes (POST, PUT, PATCH, DELETE) per game-server key per window; 429
    ``throttled`` with Retry-After beyond. Reads are not counted here (a server's reads are its own games and
    tickets). The default throttle of every view that names none (REST_FRAMEWORK in config/sections/api.py)."""

    scope = "write"
    SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

    def rate(self) -> tuple[int, int] | None:
        rate = settings.API_WRITE_THROTTLE_RATE
        return None if rate is None else parse_rate(rate)

    def bucket(self, request: Request) -> str:
        return f"server-{request.user.pk}"

    def allow_request(self, request: Request, view: APIView) -> bool:
        if request.method in self.SAFE_METHODS or getattr(request.user, "pk", None) is None:
            return True
        return super().allow_request(request, view)
