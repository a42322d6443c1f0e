"""What every page of the panel shares: read-only forms, and actions as confirmation pages at their own URLs."""

from __future__ import annotations

from typing import Any, ClassVar

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path

from arena.admin import HandleSearch, ReadOnly
from backoffice.admin.confirm import Action, action_buttons, action_view


class PanelAdmin(HandleSearch, ReadOnly, admin.ModelAdmin):
    """Read-only for everyone, superusers included: what changes goes through an action and its service.

    No Save buttons (no change permission), no add, no delete, no bulk "delete selected". ``panel_actions`` maps
    a URL slug to an ``Action``; each gets ``<pk>/<slug>/`` wrapped in ``admin_view`` (staff login, CSRF) and a
    button on the object's page for users who hold its permission.
    """

    panel_actions: ClassVar[dict[str, Action]] = {}

    class Media:
        # Every panel list and page: the panel's look, and the sidebar collapsed on a narrow screen.
        css = {"all": ("backoffice/panel.css",)}
        js = ("backoffice/sidebar.js",)

    def response_action(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        """A selection that cannot be an id (a forged form) is refused with a message, not a 500 from the
        ``pk__in`` Django builds before the action runs."""
        try:
            for raw in request.POST.getlist(helpers.ACTION_CHECKBOX_NAME):
                self.model._meta.pk.to_python(raw)
        except ValidationError:
            self.message_user(request, "The selection holds an id that is no id.", messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())
        return super().response_action(request, queryset)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [*self.fields] if self.fields else [f.name for f in self.model._meta.fields]

    def get_urls(self) -> list[URLPattern]:
        info = self.model._meta.app_label, self.model._meta.model_name
        extra = [
            path(
                f"<path:object_id>/{slug}/",
                self.admin_site.admin_view(self._action_door(slug)),
                name="{}_{}_{}".format(*info, slug),
            )
            for slug in self.panel_actions
        ]
        return extra + super().get_urls()

    def _action_door(self, slug: str):
        def door(request: HttpRequest, object_id: str) -> HttpResponse:
            return action_view(self, request, object_id, self.panel_actions[slug])

        door.__name__ = f"{slug}_view"
        return door

    def panel_context(self, request: HttpRequest, obj: Any) -> dict[str, Any]:
        """The page's extra reads (``reads.*_page``); subclasses override."""
        return {}

    def panel_subtitle(self, obj: Any) -> str | None:
        """The page's heading, when the model's own ``str`` says less than a moderator needs."""
        return None

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        obj = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if obj is not None and self.has_view_permission(request, obj):
            context["panel"] = self.panel_context(request, obj)
            context["moderation_buttons"] = action_buttons(request, obj, self.panel_actions)
            subtitle = self.panel_subtitle(obj)
            if subtitle:
                context["subtitle"] = subtitle
        return super().change_view(request, object_id, form_url, extra_context=context)
