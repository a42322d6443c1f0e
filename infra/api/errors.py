"""One error shape for every failure: ``{"error": {"code", "message", "fields"?}}`` (docs/api.md).

The platform knows its own refusals (``infra.errors.ArenaError`` and DRF's); a domain's other refusals (a game's
rule broken, a title that is no game) reach this shape through ``refusal_register``, which the domain calls once
at startup (``arena/api/refusals.py``, from ``ArenaConfig.ready``), so this module imports no domain app.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

import structlog
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from infra.api.parsers import BodyTooComplex, BodyTooLarge, DuplicateKeyError
from infra.db import RETRY_ATTEMPTS, connection_lost, is_transient
from infra.errors import ArenaError

_DRF_CODES = {
    exceptions.NotAuthenticated: "missing_api_key",
    exceptions.AuthenticationFailed: "invalid_api_key",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.ParseError: "malformed_json",
    exceptions.Throttled: "throttled",
    BodyTooLarge: "body_too_large",
    BodyTooComplex: "body_too_complex",
    DuplicateKeyError: "duplicate_key",
}
# DRF's own "Authentication credentials were not provided." leaves a new integrator guessing the header.
MISSING_API_KEY_MESSAGE = "This endpoint needs a game server's key: send the header 'Authorization: Api-Key <key>'."
# The database kept aborting the request's transaction for a transient reason (a deadlock victim, a stale read)
# after every retry of ``infra.db.retry_transient``: nothing was written, and the same request a moment later
# will most likely succeed. A 503 with Retry-After says exactly that, where a 500 says "our bug".
BUSY = "busy"
BUSY_RETRY_AFTER_SECONDS = 1
# The database cannot be reached (down, restarting, the connection lost: ``infra.db.connection_lost``): nothing
# was written, and the request will work once it is back, in a few seconds for a restart.
UNAVAILABLE = "unavailable"
UNAVAILABLE_RETRY_AFTER_SECONDS = 5
UNAVAILABLE_MESSAGE = (
    "The database is not answering (down or restarting) and nothing was recorded; send the same "
    f"request again in {UNAVAILABLE_RETRY_AFTER_SECONDS} s (resends are idempotent)."
)

log = logging.getLogger(__name__)


def error_body(code: str, message: str, fields: dict[str, str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if fields:
        body["fields"] = fields
    return {"error": body}


# A domain's refusal kind -> its status and body; a code -> the body of an ``ArenaError`` with that code, where
# the domain says more than the message (the titles there are, for ``unknown_game``).
RefusalRender = Callable[[Any], tuple[int, dict[str, Any]]]
_KINDS: dict[type[Exception], RefusalRender] = {}
_CODES: dict[str, Callable[[ArenaError], dict[str, Any]]] = {}


def refusal_register(kind: type[Exception], render: RefusalRender) -> None:
    """A domain exception (not an ``ArenaError``) the API answers as a refusal: ``render`` gives status and body."""
    _KINDS[kind] = render


def refusal_code_register(code: str, body: Callable[[ArenaError], dict[str, Any]]) -> None:
    """The error body of every ``ArenaError`` with this ``code``, where the domain adds to the plain shape."""
    _CODES[code] = body


def _render_of(exc: BaseException) -> RefusalRender | None:
    for kind in type(exc).__mro__:
        if kind in _KINDS:
            return _KINDS[kind]
    return None


def is_refusal(exc: BaseException) -> bool:
    """An ``ArenaError`` or a registered domain refusal: answered by ``refusal_body``."""
    return isinstance(exc, ArenaError) or _render_of(exc) is not None


def refusal_body(refusal: Exception) -> tuple[int, dict[str, Any]]:
    """Status and error body of a refusal: the one place any kind becomes the API's error shape."""
    render = _render_of(refusal)
    if render is not None:
        return render(refusal)
    if not isinstance(refusal, ArenaError):
        raise TypeError(f"{type(refusal).__name__} is no refusal (refusal_register it)")
    if refusal.code in _CODES:
        return refusal.status, _CODES[refusal.code](refusal)
    body = error_body(refusal.code, refusal.message, refusal.fields)
    if refusal.extra:
        body["error"].update(refusal.extra)
    return refusal.status, body


def _flatten(detail: Any, prefix: str = "") -> dict[str, str]:
    """DRF's nested error dicts/lists as JSON paths like ``players.2.score``."""
    if isinstance(detail, dict):
        out: dict[str, str] = {}
        for key, value in detail.items():
            path = str(key) if not prefix else f"{prefix}.{key}"
            if key == "non_field_errors":
                path = prefix or "body"
            out.update(_flatten(value, path))
        return out
    if isinstance(detail, list):
        if detail and all(not isinstance(item, (dict, list)) for item in detail):
            return {prefix or "body": " ".join(str(item) for item in detail)}
        out = {}
        for index, value in enumerate(detail):
            if value:
                out.update(_flatten(value, f"{prefix}.{index}" if prefix else str(index)))
        return out
    return {prefix or "body": str(detail)}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if is_refusal(exc):
        http_status, body = refusal_body(exc)
        retry_after = getattr(exc, "extra", {}).get("retry_after")
        # A refusal that lifts by itself (a cool-down) says when, in the header HTTP clients already read too.
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
        return Response(body, status=http_status, headers=headers)
    if isinstance(exc, DatabaseError) and is_transient(exc):
        return busy_response(exc)
    if isinstance(exc, DatabaseError) and connection_lost(exc):
        return unavailable_response(exc)
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        return Response(
            error_body("invalid_input", "Some values are missing or invalid; see fields.", fields),
            status=status.HTTP_400_BAD_REQUEST,
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "error")
    detail = MISSING_API_KEY_MESSAGE if code == "missing_api_key" else getattr(exc, "detail", str(exc))
    response.data = error_body(
        code, str(detail), {exc.key: "Sent more than once."} if isinstance(exc, DuplicateKeyError) else None
    )
    return response


def busy_response(exc: DatabaseError) -> Response:
    """503 ``busy`` with ``Retry-After``: the database is contended, the request wrote nothing, send it again."""
    log.warning("answering 503 busy: transient database failure after %d attempts: %s", RETRY_ATTEMPTS, exc)
    body = error_body(
        BUSY,
        "The database is busy with concurrent writes and nothing was recorded; send the same "
        f"request again in {BUSY_RETRY_AFTER_SECONDS} s (resends are idempotent).",
    )
    return Response(
        body, status=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": str(BUSY_RETRY_AFTER_SECONDS)}
    )


def _note_unavailable(exc: BaseException) -> None:
    """Said once, on the request's own log line (``unavailable``: the error's class), not on a line of its own:
    during an outage every request fails the same way and one line each is enough."""
    structlog.contextvars.bind_contextvars(unavailable=exc.__class__.__name__)


def unavailable_response(exc: BaseException) -> Response:
    """503 ``unavailable`` with ``Retry-After`` (DRF views; ``unavailable_page`` answers outside DRF)."""
    _note_unavailable(exc)
    return Response(
        error_body(UNAVAILABLE, UNAVAILABLE_MESSAGE),
        status=status.HTTP_503_SERVICE_UNAVAILABLE,
        headers={"Retry-After": str(UNAVAILABLE_RETRY_AFTER_SECONDS)},
    )


def unavailable_page(request: HttpRequest) -> HttpResponse:
    """The same 503 outside DRF: JSON for the API and anything that is not the panel, a plain page for the panel
    (a moderator reads it; no template, since rendering one may itself need the database)."""
    headers = {"Retry-After": str(UNAVAILABLE_RETRY_AFTER_SECONDS)}
    if request.path.startswith("/admin/"):
        return HttpResponse(
            "503 Service Unavailable\n\nThe database is not answering (down or restarting). "
            f"Reload this page in {UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.\n",
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            content_type="text/plain; charset=utf-8",
            headers=headers,
        )
    return JsonResponse(
        error_body(UNAVAILABLE, UNAVAILABLE_MESSAGE), status=status.HTTP_503_SERVICE_UNAVAILABLE, headers=headers
    )


class DatabaseUnavailableMiddleware:
    """Connection loss raised by a view outside DRF (the panel, the schema, the not-found door) is the 503 page,
    not a 500. DRF's views answer through ``exception_handler``; failures inside other middleware (the session
    saved on the way out) reach ``server_error``, which answers the same."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, DatabaseError) and connection_lost(exception):
            _note_unavailable(exception)
            # No session to save on the way out (SESSION_SAVE_EVERY_REQUEST would load it again and raise): the
            # session middleware leaves a request without one alone.
            if hasattr(request, "session"):
                del request.session
            return unavailable_page(request)
        return None


@csrf_exempt
def endpoint_not_found(request: HttpRequest, unmatched: str = "") -> JsonResponse:
    """Any path under /api/v1/ that names no endpoint: a JSON 404 like every other API error, not an HTML page.

    A path missing only its trailing slash says so: Django's own redirect cannot carry a POST body, and a game
    server's developer should not have to guess.

    Exempt from CSRF like every DRF view: the API authenticates by key, never by cookie, so there is no forged
    cross-site request to stop, and without the exemption a POST to a wrong path met Django's HTML 403 page
    before this view could answer.
    """
    message = f"No endpoint at {request.path}."
    try:
        match = resolve(request.path + "/")
    except Resolver404:
        match = None
    if match is not None and match.func is not endpoint_not_found:
        message += f" Did you mean {request.path}/ ?"
    return JsonResponse(error_body("not_found", message), status=status.HTTP_404_NOT_FOUND)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: API clients get the API's error shape (DEBUG off; with DEBUG on Django shows its page).

    Django calls it while handling the exception, so a lost database connection (raised anywhere, a middleware
    included) is still told apart here and answered 503 ``unavailable``."""
    raised = sys.exc_info()[1]
    if isinstance(raised, DatabaseError) and connection_lost(raised):
        _note_unavailable(raised)
        return unavailable_page(request)
    body = error_body("server_error", "Something went wrong on our side; it is logged. Retrying is safe.")
    if request.path.startswith("/api/"):
        return JsonResponse(body, status=status.HTTP_500_INTERNAL_SERVER_ERROR)
    return defaults.server_error(request)
