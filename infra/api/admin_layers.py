"""The admin's layers (session, login, second factor, messages) on the admin's paths only.

Only the admin (under ``/admin/``) has a session, a login form, a TOTP code and one-time messages; the API
authenticates each request by its key (infra/api/auth.py), the probes and the metrics endpoint by nothing or a
bearer token. On every other path these four layers did work for nothing: a session cookie parse, a
lazy user, the OTP accessors and a message store per request (the request path's table in docs/testing.md).
Each class here is Django's or django-otp's own, unchanged under ``/admin/``, and a plain pass-through elsewhere.
CSRF is not among them: ``manage.py check --deploy`` looks for Django's class by name (security.W003), and on
DRF's views (exempt) it only reads a cookie.

They are subclasses, not wrappers, so that Django's system checks that look for them by class (admin.E408-E410:
sessions, auth, messages) still find them. Nothing the security work proved loosens: the admin keeps every layer
in the same order, and an API request never had a session to steal or a form to forge (DRF's views are exempt
from CSRF and authenticate by key).
"""

from __future__ import annotations

from django.contrib.auth.middleware import AuthenticationMiddleware as _Authentication
from django.contrib.messages.middleware import MessageMiddleware as _Messages
from django.contrib.sessions.middleware import SessionMiddleware as _Session
from django.http import HttpRequest, HttpResponse
from django_otp.middleware import OTPMiddleware as _OTP

ADMIN_PREFIX = "/admin/"


def is_admin_path(request: HttpRequest) -> bool:
    """True under the admin's mount (config/urls.py), the only place a session or a form exists."""
    path: str = request.path_info
    return path.startswith(ADMIN_PREFIX)


class SessionMiddleware(_Session):  # type: ignore[misc]  # Django has no type stubs: its classes are Any
    def __call__(self, request: HttpRequest) -> HttpResponse:
        return super().__call__(request) if is_admin_path(request) else self.get_response(request)


class AuthenticationMiddleware(_Authentication):  # type: ignore[misc]  # Django has no type stubs: its classes are Any
    def __call__(self, request: HttpRequest) -> HttpResponse:
        return super().__call__(request) if is_admin_path(request) else self.get_response(request)


class OTPMiddleware(_OTP):  # type: ignore[misc]  # django-otp has no type stubs: its classes are Any
    def __call__(self, request: HttpRequest) -> HttpResponse:
        return super().__call__(request) if is_admin_path(request) else self.get_response(request)


class MessageMiddleware(_Messages):  # type: ignore[misc]  # Django has no type stubs: its classes are Any
    def __call__(self, request: HttpRequest) -> HttpResponse:
        return super().__call__(request) if is_admin_path(request) else self.get_response(request)
