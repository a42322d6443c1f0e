"""The admin door (docs/security.md): the login form with its TOTP code, enrolment, and what axes sees.

A moderator can ban players and void games, so a password alone does not open the panel in production: staff
also give the code of a TOTP authenticator (django-otp). ``create_moderator`` (or ``enrol_totp``) makes an
*unconfirmed* device and prints its ``otpauth://`` URI; the first login with a valid code from it confirms it.
Only the person who was handed that URI can produce such a code, so confirming at login opens nothing to someone
who merely knows the password.

A wrong code after a right password counts as a failed login for django-axes, like a wrong password: the code
cannot be guessed past the lockout either (django-otp's own per-device delay applies too).
"""
from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import user_login_failed
from django.db import transaction
from django.http import HttpRequest

DEVICE_NAME = "authenticator"


class LockoutBackend(AxesStandaloneBackend):
    """django-axes's lockout check, first of ``AUTHENTICATION_BACKENDS``, for logins that come with a request.

    Axes refuses a call without a request (ValueError); the only such calls are Django's test client and
    scripts, never a web login (the admin always passes its request; the API authenticates by key, not by
    password), so they are let through to the password check instead of failing.
    """

    def authenticate(self, request: HttpRequest | None, *args: Any, **kwargs: Any) -> None:
        if request is None:
            return None
        return super().authenticate(request, *args, **kwargs)


def no_client_address(request: HttpRequest) -> None:
    """``AXES_CLIENT_IP_CALLABLE``: axes locks by username only and never stores an address (its column holds a
    raw IP, which docs/moderation.md keeps out of the database)."""
    return None


def lockout_response(request: HttpRequest, original_response: Any = None, credentials: Any = None) -> Any:
    """``AXES_LOCKOUT_CALLABLE``: the lockout page (429) in the admin's own look, with the site's header. The same
    page whether or not the username exists; it names neither the username nor the attempts made."""
    from django.contrib import admin
    from django.shortcuts import render

    context = {**admin.site.each_context(request), "cooloff_timedelta": settings.AXES_COOLOFF_TIME}
    return render(request, "admin/backoffice/locked_out.html", context, status=settings.AXES_HTTP_RESPONSE_CODE)


def totp_enrol(user: Any) -> str:
    """A fresh unconfirmed TOTP device for ``user`` (replacing any earlier unconfirmed one); its enrolment URI.

    A confirmed device stays until a superuser deletes it in the admin (OTP_TOTP -> TOTP devices): enrolling
    again adds a second authenticator, it does not silently replace the one in use.
    """
    from django_otp.plugins.otp_totp.models import TOTPDevice

    with transaction.atomic():
        TOTPDevice.objects.filter(user=user, confirmed=False).delete()
        device = TOTPDevice.objects.create(user=user, name=DEVICE_NAME, confirmed=False)
    return device.config_url


def totp_verify(user: Any, token: str) -> Any | None:
    """The device ``token`` is a valid code of, or None. A valid code of an unconfirmed device confirms it (the
    enrolment's last step). django-otp refuses a code already used and slows down repeated failures."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    token = token.strip().replace(" ", "")
    if not token.isdigit():
        return None
    devices = sorted(TOTPDevice.objects.filter(user=user), key=lambda d: not d.confirmed)
    for device in devices:
        allowed, _ = device.verify_is_allowed()
        if allowed and device.verify_token(token):
            if not device.confirmed:
                device.confirmed = True
                device.save(update_fields=["confirmed"])
                TOTPDevice.objects.filter(user=user, confirmed=False).delete()
            return device
    return None


class PanelLoginForm(AdminAuthenticationForm):
    """Django's admin login plus the authenticator's code (required when ``ADMIN_REQUIRE_OTP``)."""

    otp_token = forms.CharField(
        label="Authenticator code", required=False, max_length=10,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )

    no_device_message = ("This account has no authenticator enrolled; ask an operator to run "
                         "manage.py enrol_totp USERNAME and scan the printed URI.")
    bad_code_message = "Please enter the current code of your authenticator."

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()  # username, password, is_staff: Django's checks and messages
        user = self.get_user()
        token = (cleaned.get("otp_token") or "").strip()
        if user is None or (not token and not settings.ADMIN_REQUIRE_OTP):
            return cleaned
        from django_otp.plugins.otp_totp.models import TOTPDevice

        if not TOTPDevice.objects.filter(user=user).exists():
            raise forms.ValidationError(self.no_device_message, code="no_device")
        device = totp_verify(user, token)
        if device is None:
            # Counted by django-axes like a wrong password (the same username lock).
            user_login_failed.send(sender=__name__, credentials={"username": user.get_username()},
                                   request=self.request)
            raise forms.ValidationError(self.bad_code_message, code="invalid_token")
        # django-otp's user_logged_in handler stores the device in the session: request.user.is_verified().
        user.otp_device = device
        return cleaned
