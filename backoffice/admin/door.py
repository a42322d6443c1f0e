"""The admin door's own admin pages: a superuser's "Unlock" action, and the TOTP pages of a missing device.

**Unlock** (issue 25 §1.2): a locked-out moderator is let back in by any superuser who can still log in, from the
admin, without a shell: *Users* -> select the accounts -> *Unlock login*, which clears every failed attempt of
those usernames from every address (``axes.utils.reset``); or *Axes -> Access attempts* -> select rows ->
*Unlock*, which clears those rows (an address's own lock included). ``manage.py axes_reset`` stays for the worst
case, when no superuser can log in. Superusers only: unlocking is the operator's decision.

**A missing device** (issue 25 §1.4): django-otp's config and QR pages looked the device up with ``.get()``, so a
deleted or never-existing id was a 500; here it is the admin's 404.
"""

from __future__ import annotations

from typing import Any

from axes.models import AccessAttempt
from axes.utils import reset
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404, HttpRequest
from django_otp.plugins.otp_totp.models import TOTPDevice


def _superuser(model_admin: admin.ModelAdmin, request: HttpRequest) -> bool:
    return bool(request.user.is_active and request.user.is_superuser)


@admin.action(description="Unlock login (clear failed attempts)", permissions=["unlock"])
def unlock_users(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    """Every failed attempt of the selected usernames, from every address, in one transaction."""
    with transaction.atomic():
        cleared = sum(reset(username=user.get_username()) for user in queryset)
    model_admin.message_user(
        request, f"Unlocked {queryset.count()} account(s); {cleared} attempt record(s) cleared.", messages.SUCCESS
    )


@admin.action(description="Unlock (clear these attempts)", permissions=["unlock"])
def unlock_attempts(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    with transaction.atomic():
        cleared, _ = queryset.delete()
    model_admin.message_user(request, f"{cleared} attempt record(s) cleared.", messages.SUCCESS)


def _with_unlock(model: type, action: Any) -> None:
    """Re-register ``model``'s admin as a subclass with ``action`` and ``has_unlock_permission``."""
    current = admin.site._registry.get(model)
    if current is None:
        return
    base = type(current)
    attrs = {"actions": [*(base.actions or []), action], "has_unlock_permission": _superuser, "__module__": __name__}
    admin.site.unregister(model)
    admin.site.register(model, type(f"Unlockable{base.__name__}", (base,), attrs))


def _missing_device_is_404(view: Any) -> Any:
    def wrapped(self: Any, request: HttpRequest, pk: int) -> Any:
        if not TOTPDevice.objects.filter(pk=pk).exists():
            raise Http404("No such authenticator.")
        return view(self, request, pk)

    return wrapped


def register() -> None:
    """Called once by ``backoffice.admin`` (after every app registered its admin)."""
    _with_unlock(get_user_model(), unlock_users)
    _with_unlock(AccessAttempt, unlock_attempts)
    current = admin.site._registry.get(TOTPDevice)
    if current is not None:
        base = type(current)
        attrs = {
            "config_view": _missing_device_is_404(base.config_view),
            "qrcode_view": _missing_device_is_404(base.qrcode_view),
            "__module__": __name__,
        }
        admin.site.unregister(TOTPDevice)
        admin.site.register(TOTPDevice, type(f"Checked{base.__name__}", (base,), attrs))
