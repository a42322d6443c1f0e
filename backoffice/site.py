"""The admin site Arena serves at /admin/: Django's own, with the moderation dashboard as its index page.

Kept out of ``backoffice.admin`` on purpose: this module is named in INSTALLED_APPS (``PanelAdminConfig``), so it
is imported while the app registry is still loading and must not import any model at module level.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest
from django.template.response import TemplateResponse


class PanelSite(admin.AdminSite):
    """The admin with the moderators' dashboard above the list of models (docs/moderation.md: the panel)."""

    site_header = "Arena moderation"
    site_title = "Arena admin"
    index_title = "Dashboard"
    index_template = "admin/backoffice/dashboard.html"
    login_template = "admin/backoffice/login.html"

    @property
    def login_form(self) -> type:
        """The login with the authenticator's code (backoffice/admin_door.py); imported late, see above."""
        from backoffice.admin_door import PanelLoginForm

        return PanelLoginForm

    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        context = {"otp_required": settings.ADMIN_REQUIRE_OTP, **(extra_context or {})}
        return super().login(request, extra_context=context)

    def has_permission(self, request: HttpRequest) -> bool:
        """Active staff, and in production (``ADMIN_REQUIRE_OTP``) logged in with a TOTP code: a staff account
        without a confirmed authenticator reaches no panel page, only the login (docs/security.md)."""
        if not super().has_permission(request):
            return False
        if not settings.ADMIN_REQUIRE_OTP:
            return True
        is_verified = getattr(request.user, "is_verified", None)
        return bool(is_verified and is_verified())

    # Arena has no public site at "/" (the API lives under /api/): no "View site" link that answers 404.
    site_url = None

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
        from backoffice.admin.dashboard import dashboard_context

        context = {"dashboard": dashboard_context(user=request.user), **(extra_context or {})}
        return super().index(request, extra_context=context)


class PanelAdminConfig(AdminConfig):
    """Replaces ``django.contrib.admin`` in INSTALLED_APPS so ``admin.site`` is the ``PanelSite``."""

    default_site = "backoffice.site.PanelSite"
