"""The admin site Arena serves at /admin/: Django's own, with the moderation dashboard as its index page.

Kept out of ``moderation.admin`` on purpose: this module is named in INSTALLED_APPS (``PanelAdminConfig``), so it
is imported while the app registry is still loading and must not import any model at module level.
"""
from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest
from django.template.response import TemplateResponse


class PanelSite(admin.AdminSite):
    """The admin with the moderators' dashboard above the list of models (docs/moderation.md: the panel)."""

    site_header = "Arena moderation"
    site_title = "Arena admin"
    index_title = "Dashboard"
    index_template = "admin/moderation/dashboard.html"
    # Arena has no public site at "/" (the API lives under /api/): no "View site" link that answers 404.
    site_url = None

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
        from moderation.admin.dashboard import dashboard_context

        context = {"dashboard": dashboard_context(user=request.user), **(extra_context or {})}
        return super().index(request, extra_context=context)


class PanelAdminConfig(AdminConfig):
    """Replaces ``django.contrib.admin`` in INSTALLED_APPS so ``admin.site`` is the ``PanelSite``."""

    default_site = "moderation.site.PanelSite"
