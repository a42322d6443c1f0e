"""Chunked request bodies under the API's cap (docs/security.md, the limits).

Django sizes a request body by its ``Content-Length``; a chunked body has none, so Django (and DRF after it)
would see an empty body and the parser's cap (infra/api/parsers.py) would never meet it. This middleware reads
such a body for paths under /api/, at most ``API_MAX_BATCH_BODY_BYTES`` (the largest cap) plus one byte, and
hands it on with its length, so the parser then applies the endpoint's own cap as for any other body. Longer is
413 ``body_too_large`` at once, in the API's error shape, with the rest left unread.
"""
from __future__ import annotations

import io
from collections.abc import Callable

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream
from django.http import HttpRequest, HttpResponse, JsonResponse

from infra.api.errors import error_body

CHUNK = 64 * 1024


class ChunkedBodyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        meta = request.META
        chunked = "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower() and not meta.get("CONTENT_LENGTH")
        if chunked and request.path.startswith("/api/") and "wsgi.input" in meta:
            limit = settings.API_MAX_BATCH_BODY_BYTES
            body = _read_at_most(meta["wsgi.input"], limit + 1)
            if len(body) > limit:
                message = f"The request body is larger than {limit} bytes; nothing was recorded."
                response = JsonResponse(error_body("body_too_large", message), status=413)
                response["Connection"] = "close"  # the rest of the body is not read
                return response
            meta["CONTENT_LENGTH"] = str(len(body))
            request._stream = LimitedStream(io.BytesIO(body), len(body))
        return self.get_response(request)


def _read_at_most(stream: io.RawIOBase, size: int) -> bytes:
    parts, left = [], size
    while left > 0:
        part = stream.read(min(CHUNK, left))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
