"""HTTP caching of the public reads (player pages, rating history, leaderboards): a CDN and a browser may keep them.

Each read says how fresh it is with a short ``Cache-Control: public, max-age=N, stale-while-revalidate=M`` and an
``ETag`` (a hash of the body), and answers ``304 Not Modified`` with no body when ``If-None-Match`` names the
current one. Why so short: a rating lands within seconds of a game (docs/architecture.md), so a board cached for
minutes would hide the game a player just finished; a few seconds already turns a CDN's thousand readers into
one request. Only 200 answers are marked cacheable; errors and throttled answers are not.

Key-authenticated endpoints never use this: what a game server reads is its own and changes with its writes.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.http import HttpResponseNotModified
from django.utils.cache import patch_cache_control
from django.utils.http import parse_etags
from rest_framework.request import Request
from rest_framework.response import Response


class PublicCache:
    """A mixin for an APIView: ``cache_max_age`` and ``cache_stale_while_revalidate`` in seconds."""

    cache_max_age: int = 5
    cache_stale_while_revalidate: int = 30

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        if not isinstance(response, Response) or response.status_code != 200:
            return response
        response.render()
        etag = f'"{hashlib.blake2b(response.content, digest_size=16).hexdigest()}"'
        control = {
            "public": True,
            "max_age": self.cache_max_age,
            "stale_while_revalidate": self.cache_stale_while_revalidate,
        }
        wanted = request.headers.get("If-None-Match")
        # If-None-Match compares weakly (RFC 9110 13.1.2): W/"x" names the same body as "x".
        if wanted and (etag in {tag.removeprefix("W/") for tag in parse_etags(wanted)} or wanted.strip() == "*"):
            # RFC 9110 15.4.5: a 304 carries the ETag and Cache-Control the 200 would have carried.
            not_modified = HttpResponseNotModified()
            not_modified["ETag"] = etag
            patch_cache_control(not_modified, **control)
            return not_modified
        response["ETag"] = etag
        patch_cache_control(response, **control)
        return response
