"""The API's JSON renderer: DRF's output, written by orjson.

Rendering a top-50 board or a player page with the standard library's encoder was the largest share of a read
after the database and Redis (the request path's table in docs/testing.md); orjson writes the same bytes several
times faster. The bytes are DRF's: compact separators, UTF-8 left unescaped (DRF's ``UNICODE_JSON``), dict
subclasses (a serializer's ``ReturnDict``) and ``str`` subclasses (``ErrorDetail``) as plain objects and strings,
and whatever orjson does not write natively the way DRF does (datetimes, with their ``Z``; decimals; lazy
translations) handed to DRF's own encoder. A client asking for ``indent`` gets DRF's renderer, unchanged.
"""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
_fallback = JSONEncoder().default


class OrjsonRenderer(JSONRenderer):  # type: ignore[misc]  # DRF has no type stubs: its classes are Any
    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: dict[str, Any] | None = None
    ) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}):
            indented: bytes = super().render(data, accepted_media_type, renderer_context)
            return indented
        return orjson.dumps(data, default=_fallback, option=_OPTIONS)
