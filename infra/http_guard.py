"""The HTTP door's own guards, for every path, admin and API alike (docs/security.md, "What was tried").

One middleware, placed just after Django's ``SecurityMiddleware`` so that every answer below it (the admin's
pages, Swagger UI, the API's JSON, a lockout page, a 500) leaves with the same headers:

- **Content-Security-Policy** and **Permissions-Policy** on every response. Pages load scripts, styles, images and
  fonts from Arena itself only (Swagger UI is served by drf-spectacular's split view, whose start-up script is a
  file, not inline); inline *styles* are allowed because the admin and Swagger UI set them, inline *scripts*
  never. JSON answers get ``default-src 'none'``: nothing in them is ever to be run or loaded.

And before the request reaches anything that parses it:

- A query string with a NUL byte is refused (400): PostgreSQL's text cannot hold one, and an admin list filter
  of ``%00`` was a 500 (issue 25 §1.4).
- More query parameters than ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` are refused (400 ``too_many_parameters``); under
  /api/ in the API's error shape (Django's own refusal was an HTML page).
- Outside /api/ (the admin and the docs: forms only), a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` by its declared
  length is 413 before a byte is read, and a chunked body (no declared length) is 411: no admin form needs more,
  and a form spooled whole cost the worker its size in memory (issue 25 §1.9). The API's bodies have their own
  caps (infra/api/parsers.py).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

API_PREFIX = "/api/"
PAGE_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
DATA_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), "
    "magnetometer=(), microphone=(), midi=(), payment=(), usb=()"
)


def _error(request: HttpRequest, status: int, code: str, message: str) -> HttpResponse:
    """The API's error shape under /api/ (docs/api.md); a plain text line elsewhere (a moderator reads it)."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"error": {"code": code, "message": message}}, status=status)
    return HttpResponse(f"{status} {message}\n", status=status, content_type="text/plain; charset=utf-8")


def parameter_count(query_string: str) -> int:
    """How many parameters Django would parse out of ``query_string`` (``&`` and ``;`` separate them, empty
    pieces are skipped), counted without parsing it."""
    if not query_string:
        return 0
    return sum(1 for piece in query_string.replace(";", "&").split("&") if piece)


def refusal(request: HttpRequest) -> HttpResponse | None:
    """The answer to a request refused before any view sees it, or None."""
    query = request.META.get("QUERY_STRING", "")
    if "\x00" in query or "%00" in query.lower():
        return _error(request, 400, "invalid_query", "The query string holds a NUL byte.")
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    if limit is not None and parameter_count(query) > limit:
        return _error(request, 400, "too_many_parameters", f"More than {limit} query parameters.")
    if not request.path.startswith(API_PREFIX) and request.method not in ("GET", "HEAD", "OPTIONS"):
        cap = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        declared = request.META.get("CONTENT_LENGTH") or ""
        if not declared and "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            return _error(request, 411, "length_required", "A form must declare its Content-Length.")
        if cap is not None and declared.isdigit() and int(declared) > cap:
            response = _error(request, 413, "body_too_large", f"The form is larger than {cap} bytes.")
            response["Connection"] = "close"  # the body is not read
            return response
    return None


def add_policies(response: HttpResponse) -> HttpResponse:
    """CSP (the page policy, or the data policy for JSON) and Permissions-Policy, unless a view set its own."""
    content_type = response.get("Content-Type", "")
    is_data = content_type.startswith(("application/json", "application/problem+json", "application/vnd.oai"))
    response.headers.setdefault("Content-Security-Policy", DATA_POLICY if is_data else PAGE_POLICY)
    response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
    return response


class HttpGuardMiddleware:
    """``refusal`` on the way in, ``add_policies`` on the way out (every response, refusals included)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refused = refusal(request)
        return add_policies(refused if refused is not None else self.get_response(request))
