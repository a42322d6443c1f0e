"""The API's JSON parser: DRF's, with one more malformed body turned into a 400, and a cap on the body's size.

DRF reads the request stream itself, so Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` never applies to it: the cap is
here (docs/security.md, the limits). A declared ``Content-Length`` over the cap is refused before a byte is read;
otherwise at most the cap plus one byte is read, so a body that is longer than it says is refused too. A
chunked body (no ``Content-Length``) reaches the parser through ``infra.api.limits.ChunkedBodyMiddleware``,
unread: the parser is the first to read it, under the endpoint's own cap. The batch endpoint has its own, larger
cap: a view names the setting it uses in ``body_limit_setting``.

Bytes are not the whole story (issue 25 §1.3): before the body is decoded, ``infra.api.json_budget`` bounds what it
would expand to, the number of JSON values (``API_MAX_JSON_VALUES``, a batch's ``API_MAX_BATCH_JSON_VALUES``)
and the nesting (``API_MAX_JSON_DEPTH``): 400 ``body_too_complex`` beyond. A key sent twice in one object is
400 ``duplicate_key`` naming it (issue 25 §2).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import parsers, status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.utils import json

from infra.api.json_budget import DuplicateKey, over_budget, unique_pairs
from infra.api.limits import CHUNKED_MARK

DEFAULT_LIMIT_SETTING = "API_MAX_BODY_BYTES"
DEFAULT_VALUES_SETTING = "API_MAX_JSON_VALUES"


class BodyTooLarge(APIException):  # type: ignore[misc]  # DRF has no type stubs: its classes are Any
    """413 ``body_too_large`` (infra/api/errors.py gives it the API's error shape)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "body_too_large"

    def __init__(self, limit: int) -> None:
        super().__init__(f"The request body is larger than this endpoint's {limit} bytes; nothing was recorded.")


class BodyTooComplex(APIException):  # type: ignore[misc]  # DRF has no type stubs: its classes are Any
    """400 ``body_too_complex``: more JSON values or deeper nesting than the endpoint takes."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "body_too_complex"

    def __init__(self, why: str) -> None:
        super().__init__(f"The request body holds {why}; nothing was recorded.")


class DuplicateKeyError(APIException):  # type: ignore[misc]  # DRF has no type stubs: its classes are Any
    """400 ``duplicate_key``: one object names a key twice (``fields`` names it)."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "duplicate_key"

    def __init__(self, key: str) -> None:
        self.key = key[:64]
        super().__init__(f"The key {self.key!r} appears more than once in one object; send it once.")


def values_limit(view: Any) -> int:
    """How many JSON values ``view``'s bodies may hold (``values_limit_setting``, or API_MAX_JSON_VALUES)."""
    return int(getattr(settings, getattr(view, "values_limit_setting", DEFAULT_VALUES_SETTING)))


def body_limit(view: Any) -> int:
    """The cap of ``view``'s bodies, in bytes."""
    return int(getattr(settings, getattr(view, "body_limit_setting", DEFAULT_LIMIT_SETTING)))


def declared_length(request: Any) -> int | None:
    if request.META.get(CHUNKED_MARK):
        return None  # a chunked body declares no length (infra/api/limits.py)
    try:
        return int(request.META.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None


class JSONParser(parsers.JSONParser):  # type: ignore[misc]  # DRF has no type stubs: its classes are Any
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        context = parser_context or {}
        limit = body_limit(context.get("view"))
        request = context.get("request")
        length = declared_length(request) if request is not None else None
        if length is not None and length > limit:
            raise BodyTooLarge(limit)
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise BodyTooLarge(limit)
        why = over_budget(raw, max_values=values_limit(context.get("view")), max_depth=settings.API_MAX_JSON_DEPTH)
        if why is not None:
            raise BodyTooComplex(why)
        encoding = context.get("encoding", settings.DEFAULT_CHARSET)
        # Python's decoder recurses once per nesting level and raises RecursionError (not ValueError, which DRF
        # turns into a 400) a few thousand levels down: a body of 5,000 "[" must be malformed_json, not a 500.
        try:
            return json.loads(
                raw.decode(encoding),
                parse_constant=json.strict_constant if self.strict else None,
                object_pairs_hook=unique_pairs,
            )
        except DuplicateKey as duplicate:
            raise DuplicateKeyError(duplicate.key) from None
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
