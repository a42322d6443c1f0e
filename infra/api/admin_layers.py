"""The admin's layers (session, CSRF, login, second factor, messages) on the admin's paths only.

Only the admin (under ``/admin/``) has a session, a login form, a TOTP code and one-time messages; the API
authenticates each request by its key (arena/api/auth.py), the probes and the metrics endpoint by nothing or a
bearer token. On every other path these five layers did work for nothing: a cookie parse, a CSRF token check, a
lazy user, the OTP accessors and a message store per request, about a tenth of a single game POST (the request
path's table in docs/testing.md). Each class here is Django's or django-otp's own, unchanged under ``/admin/``,
and a plain pass-through elsewhere.

They are subclasses, not wrappers, so that Django's system checks that look for them by class (admin.E408-E410:
sessions, auth, messages) still find them. Nothing the security work proved loosens: the admin keeps every layer
in the same order, and an API request never had a session to steal or a form to forge (DRF's views are exempt
from CSRF and authenticate by key).
"""
from __future__ import annotations

from typing import Any

from django.contrib.auth.middleware import AuthenticationMiddleware as _Authentication
from django.contrib.messages.middleware import MessageMiddleware as _Messages
from django.contrib.sessions.middleware import SessionMiddleware as _Session
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware as _Csrf
from django_otp.middleware import OTPMiddleware as _OTP

ADMIN_PREFIX = "/admin/"


def is_admin_path(request: HttpRequest) -> bool:
    """True under the admin's mount (config/urls.py), the only place a session or a form exists."""
    return request.path_info.startswith(ADMIN_PREFIX)


class SessionMiddleware(_Session):
    def __call__(self, request: HttpRequest) -> HttpResponse:
        return super().__call__(request) if is_admin_path(request) else self.get_response(request)


class CsrfViewMiddleware(_Csrf):
    def __call__(self, request: HttpRequest) -> HttpResponse:
        return super().__call__(request) if is_admin_path(request) else self.get_response(request)

    def process_view(self, request: HttpRequest, callback: Any, callback_args: Any, callback_kwargs: Any) -> Any:
        # Django calls a middleware's process_view itself (not through __call__): skip it the same way.
        if not is_admin_path(request):
            return None
        return super().process_view(request, callback, callback_args, callback_kwargs)


class AuthenticationMiddleware(_Authentication):
    def __call__(self, request: HttpRequest) -> HttpResponse:
        return super().__call__(request) if is_admin_path(request) else self.get_response(request)


class OTPMiddleware(_OTP):
    def __call__(self, request: HttpRequest) -> HttpResponse:
        return super().__call__(request) if is_admin_path(request) else self.get_response(request)


class MessageMiddleware(_Messages):
    def __call__(self, request: HttpRequest) -> HttpResponse:
        return super().__call__(request) if is_admin_path(request) else self.get_response(request)
