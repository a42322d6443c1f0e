"""Chunked request bodies under the endpoint's own cap, read only when the view asks (docs/security.md, the limits).

Django sizes a request body by its ``Content-Length``; a chunked body has none, so Django (and DRF after it)
would see an empty body and the parser's cap (infra/api/parsers.py) would never meet it. This middleware reads
nothing (issue 25 §2): for paths under /api/ it puts a stream in front of the body that gives at most
``API_MAX_BATCH_BODY_BYTES`` (the largest cap) plus one byte, read from the socket only as the view's parser
asks, after routing, authentication, permissions and throttles. The parser then reads at most the endpoint's
own cap plus one byte and answers 413 beyond, so an anonymous body sent to a path that takes none (a 404, a
405, a 401) is never read at all, and the web worker closes such a connection rather than reading the rest
(config/http_worker.py).

DRF parses a body only when ``CONTENT_LENGTH`` is not zero, so the middleware sets it to that most (never a
length the client declared) and marks the request with ``CHUNKED_MARK``; the parser reads the mark, not the
number.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream
from django.http import HttpRequest, HttpResponse

CHUNKED_MARK = "arena.chunked_body"


class ChunkedBodyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        meta = request.META
        chunked = "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower() and not meta.get("CONTENT_LENGTH")
        if chunked and request.path.startswith("/api/") and "wsgi.input" in meta:
            most = settings.API_MAX_BATCH_BODY_BYTES + 1
            request._stream = LimitedStream(meta["wsgi.input"], most)  # lazy: nothing is read here
            meta["CONTENT_LENGTH"] = str(most)
            meta[CHUNKED_MARK] = True
        return self.get_response(request)
