"""The admin door (docs/security.md): the login form with its TOTP code, enrolment, and what axes sees.

A moderator can ban players and void games, so a password alone does not open the panel in production: staff
also give the code of a TOTP authenticator (django-otp). ``create_moderator`` (or ``enrol_totp``) makes an
*unconfirmed* device and prints its ``otpauth://`` URI; the first login with a valid code from it confirms it.
Only the person who was handed that URI can produce such a code, so confirming at login opens nothing to someone
who merely knows the password.

A wrong code after a right password counts as a failed login for django-axes, like a wrong password: the code
cannot be guessed past the lockout either (django-otp's own per-device delay applies too). A wrong password, a
right password with a wrong code and a staff account with no authenticator all answer the same message: which of
them it was is written to the server's log only (issue 25 §1.5), so the form never confirms a guessed password.

django-axes locks a username *from one address* (and an address that fails too often, whatever the usernames):
someone elsewhere cannot lock a moderator out (issue 25 §1.2). Axes keeps an address column; Arena gives it a
pseudonym, never the address (``client_pseudonym``).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from typing import Any

import structlog
from axes.backends import AxesStandaloneBackend
from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import user_login_failed
from django.db import transaction
from django.http import HttpRequest

DEVICE_NAME = "authenticator"
# The longest username Django's User can have: axes writes what it is given into a varchar(255), and a longer
# one was a 500 on PostgreSQL (issue 25 §1.4). No real account is longer, so nothing is lost by cutting.
USERNAME_MAX = 150
# One message for every refused login (Django's own wording, with the code added).
REFUSED_MESSAGE = (
    "Please enter the correct username, password and authenticator code for a staff account. "
    "Note that the fields may be case-sensitive."
)

log = structlog.get_logger(__name__)


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


def client_pseudonym(request: HttpRequest) -> str:
    """``AXES_CLIENT_IP_CALLABLE``: the client's network as a pseudonymous IPv6 address in fd00::/8.

    Axes's column is an IP address; docs/moderation.md keeps raw addresses out of the database. So axes is given
    ``fd`` followed by 120 bits of ``HMAC-SHA256(IP_HASH_KEY, "axes:" + network)`` (the network is the IPv4
    address or the IPv6 /64, as for every address hash): one client is always the same pseudonym, which is all a
    lock needs, and the pseudonym cannot be matched against any other stored hash (its own domain). The address
    is the one DRF's throttles use (``REMOTE_ADDR``, or the ``NUM_PROXIES``-th from the right of
    ``X-Forwarded-For``).
    """
    from rest_framework.throttling import BaseThrottle

    from infra.hashing import ip_network

    raw = BaseThrottle().get_ident(request) or "unknown"  # a request built in code (force_login) has none
    try:
        network = ip_network(raw)
    except ValueError:  # not an address (a proxy's "unknown"): still hashed, never kept raw
        network = raw
    digest = hmac.new(settings.IP_HASH_KEY.encode(), f"axes:{network}".encode(), hashlib.sha256).digest()
    return str(ipaddress.IPv6Address(b"\xfd" + digest[:15]))


def bounded_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """``AXES_USERNAME_CALLABLE``: the username as typed, cut to ``USERNAME_MAX`` characters (and without NUL,
    which PostgreSQL's text refuses), so what axes writes always fits its column."""
    field = getattr(settings, "AXES_USERNAME_FORM_FIELD", "username")
    value = (credentials or {}).get(field) if credentials else None
    if value is None:
        value = request.POST.get(field) if request.method == "POST" else None
    if value is None:
        return None
    return str(value).replace("\x00", "")[:USERNAME_MAX]


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
        label="Authenticator code",
        required=False,
        max_length=10,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )

    # Django's "wrong password", "inactive" and "not staff" messages, and ours for the code, are all this one:
    # a different answer to a right password would confirm it (issue 25 §1.5).
    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "invalid_login": REFUSED_MESSAGE,
        "inactive": REFUSED_MESSAGE,
    }
    no_device_message = REFUSED_MESSAGE
    bad_code_message = REFUSED_MESSAGE

    def clean(self) -> dict[str, Any]:
        try:
            cleaned = super().clean()  # username, password, is_staff: Django's checks
        except forms.ValidationError as refusal:
            log.info("admin_login_refused", reason=getattr(refusal, "code", None) or "invalid_login")
            raise
        user = self.get_user()
        token = (cleaned.get("otp_token") or "").strip()
        if user is None or (not token and not settings.ADMIN_REQUIRE_OTP):
            return cleaned
        from django_otp.plugins.otp_totp.models import TOTPDevice

        if not TOTPDevice.objects.filter(user=user).exists():
            self._refuse(user, "no_device")
        device = totp_verify(user, token)
        if device is None:
            self._refuse(user, "invalid_token")
        # django-otp's user_logged_in handler stores the device in the session: request.user.is_verified().
        user.otp_device = device
        return cleaned

    def _refuse(self, user: Any, reason: str) -> None:
        """A right password without a valid code: counted by django-axes like a wrong password (the same lock),
        answered with the same message; the reason and the account's id go to the log only."""
        log.info("admin_login_refused", reason=reason, user_id=user.pk)
        user_login_failed.send(sender=__name__, credentials={"username": user.get_username()}, request=self.request)
        raise forms.ValidationError(REFUSED_MESSAGE, code=reason)
