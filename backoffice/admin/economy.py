"""The panel's *Rating economy* page per title (docs/ratings.md, "Where rating points come from"): the same service
as ``GET /api/v1/titles/{game}/economy/`` (``ratings.economy.economy_read``), drawn as two server-side plots and a
table. Read-only for every panel user: it shows aggregates, no player.

Registered on the ledger's model so it sits in the admin's index under Ratings; its list is the page of the first
title, and ``<game>/`` the page of another, with ``?days=`` (7 to 400).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.safestring import mark_safe

from arena.games import UnknownGame, all_games, get_game
from backoffice.admin.economy_charts import EconomyPoint, flows_svg, population_svg
from ratings import economy, ledger
from ratings.models import LedgerDay

DAY_CHOICES = (7, 30, 90, 400)
DEFAULT_DAYS = 30


def _days(request: HttpRequest) -> int:
    try:
        days = int(request.GET.get("days", DEFAULT_DAYS))
    except ValueError:
        return DEFAULT_DAYS
    return min(max(days, 1), economy.MAX_DAYS)


@admin.register(LedgerDay)
class EconomyAdmin(admin.ModelAdmin):
    """Not a list of rows: the ledger's rows are only ever written by the rating writers."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        # Whoever reads the panel's case files (``arena.view_player``: moderators and superusers), as the season
        # pages; a staff account without it sees nothing here (tests/db/moderation/test_admin_matrix.py).
        return bool(request.user.is_active and request.user.has_perm("arena.view_player"))

    def has_view_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def get_urls(self) -> list[URLPattern]:
        return [
            path("title/<str:game>/", self.admin_site.admin_view(self.title_view), name="ratings_ledgerday_title"),
            *super().get_urls(),
        ]

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        """The first title's page: the ledger has no list of its own."""
        return self.title_view(request, all_games()[0].title)

    def title_view(self, request: HttpRequest, game: str) -> TemplateResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            title = get_game(game).title
        except UnknownGame:
            raise Http404(f"No game {game!r}") from None
        days = _days(request)
        found = economy.economy_read(title=title, days=days)
        points = [
            EconomyPoint(
                day=d.day,
                mean=d.mean,
                median=d.median,
                created={s: f.created for s, f in d.flows.items()},
                destroyed={s: f.destroyed for s, f in d.flows.items()},
            )
            for d in found
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Rating economy: {title}",
            "game": title,
            "days": days,
            "day_choices": DAY_CHOICES,
            "sources": ledger.SOURCES,
            "titles": [g.title for g in all_games()],
            "population_svg": mark_safe(population_svg(title, points)),  # escaped in economy_charts
            "flows_svg": mark_safe(flows_svg(title, points, ledger.SOURCES)),
            "rows": [
                {
                    "day": d.day,
                    "active": d.active,
                    "mean": d.mean,
                    "median": d.median,
                    "net": d.net,
                    "by_source": [
                        (s, d.flows[s].created, d.flows[s].destroyed) for s in ledger.SOURCES if s in d.flows
                    ],
                }
                for d in reversed(found)
            ],
        }
        return TemplateResponse(request, "admin/backoffice/economy.html", context)
