"""The API's JSON parser: DRF's, with one more malformed body turned into a 400."""
from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        # Python's decoder recurses once per nesting level and raises RecursionError (not ValueError, which DRF
        # turns into a 400) a few thousand levels down: a body of 5,000 "[" must be malformed_json, not a 500.
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None
