"""Django's Redis cache, with one redis-py client per connection pool instead of one per cache operation.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` around the (shared) pool for every
operation, and redis-py's constructor copies its table of about 160 response callbacks into a fresh
case-insensitive dict each time: on a request that throttles, counts a failed authentication or reads a cached
value, that copying was a visible share of the request's CPU (docs/testing.md, the request path: about 1 ms in
60 of a profiled single POST's 17). A ``redis.Redis`` holds no state of its own besides the pool (which is
thread-safe and checks its process id after a fork), so one per pool serves every thread of a process. Behaviour
is Django's own in every other respect; the settings name this class in place of Django's (config/sections/workers.py).
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class _ClientPerPool(RedisCacheClient):  # type: ignore[misc]  # Django has no type stubs: its classes are Any
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        """The pool's one client (a race between two threads at the start makes two, harmlessly)."""
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):  # type: ignore[misc]  # Django has no type stubs: its classes are Any
    """``django.core.cache.backends.redis.RedisCache`` with ``_ClientPerPool`` as its client."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ClientPerPool
