"""The request line (django-structlog's ``request_finished``): what Arena adds to it, and the request id.

One JSON line per request carries the request id (the client's ``X-Request-ID`` when it is a plain token, else a
new one; echoed in the response's ``X-Request-ID``), the game server's name, the route (the URL pattern, not the
path), the status and the duration, and for a recording the game ids (bound by the view). Never the body, the key
or the address: django-structlog's IP logging is off (settings) and nothing here reads them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import structlog
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils.functional import LazyObject, empty
from django_structlog import signals

from infra.api.auth import key_owner_of

HEADER = "X-Request-ID"
# A client's id is kept when it could not carry anything else: a short token of safe characters.
ACCEPTED_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


class RequestIdMiddleware:
    """Before django-structlog's middleware: an id that is not a plain token is dropped, so a new one is made
    (a header is the client's text; it must not become a vehicle for log injection or a huge line)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        sent = request.META.get("HTTP_X_REQUEST_ID")
        if sent is not None and not ACCEPTED_ID.fullmatch(sent):
            del request.META["HTTP_X_REQUEST_ID"]
        return self.get_response(request)


def _server_name(request: HttpRequest) -> str | None:
    """The authenticated game server, without ever loading a lazy user (that would query the sessions)."""
    user = request.__dict__.get("user")
    if isinstance(user, LazyObject):
        user = user._wrapped
        if user is empty:
            return None
    owner = key_owner_of(user)
    return owner.name if owner is not None else None


def _route(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None else ""


def _request_line(request: HttpRequest) -> str:
    """Method and path, never the query string: a key sent as ``?api_key=`` is refused, and must not then sit in
    the log (issue 25 §1.7)."""
    return f"{request.method} {request.path}"


@receiver(signals.bind_extra_request_metadata)
def _started(request: HttpRequest, log_kwargs: dict[str, Any], **_: Any) -> None:
    request._log_started = time.perf_counter()
    log_kwargs["request"] = _request_line(request)


@receiver(signals.bind_extra_request_finished_metadata)
def _finished(request: HttpRequest, response: HttpResponse, log_kwargs: dict[str, Any], **_: Any) -> None:
    log_kwargs["request"] = _request_line(request)
    log_kwargs["route"] = _route(request)
    log_kwargs["server"] = _server_name(request)
    started = getattr(request, "_log_started", None)
    if started is not None:
        log_kwargs["duration_ms"] = round((time.perf_counter() - started) * 1000, 1)
    _echo(response)


@receiver(signals.bind_extra_request_failed_metadata)
def _failed(request: HttpRequest, log_kwargs: dict[str, Any], **_: Any) -> None:
    log_kwargs["request"] = _request_line(request)
    log_kwargs["route"] = _route(request)
    log_kwargs["server"] = _server_name(request)


@receiver(signals.update_failure_response)
def _failure_response(response: HttpResponse, **_: Any) -> None:
    _echo(response)


def _echo(response: HttpResponse) -> None:
    request_id = structlog.contextvars.get_contextvars().get("request_id")
    if request_id:
        response[HEADER] = request_id


def bind_games(game_ids: list[int]) -> None:
    """A recording's door names the games it stored: they appear on the request line."""
    structlog.contextvars.bind_contextvars(game_ids=game_ids)
