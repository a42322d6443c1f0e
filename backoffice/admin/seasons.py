"""The season pages of the panel (docs/seasons.md): a page per season of each title (the list filters by title)
with its standings' first page, its leagues and, once closed, its corrections; and the player's seasons on their
case file (``player_seasons``, used by the Player page). Read-only: seasons change only by their stage, the
rollover command and the corrections a void causes.

Whoever may read a player's case file may read the seasons (``arena.view_player``): moderators hold it already, so
the seasons need no permission of their own in the Moderators group.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from arena.models import Player
from backoffice.admin.base import PanelAdmin
from seasons import selectors
from seasons.models import Season

# Rows of the standings a season's page shows (the API pages through the rest).
PAGE_ROWS = 50


@admin.register(Season)
class SeasonAdmin(PanelAdmin):
    list_display = ("title", "number", "starts_at", "ends_at", "closed_at")
    list_filter = ("title",)
    fields = ("title", "number", "starts_at", "ends_at", "closed_at")
    ordering = ("title", "-number")
    change_form_template = "admin/backoffice/season_change_form.html"

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.has_perm("arena.view_player")

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)

    def panel_subtitle(self, obj: Season) -> str | None:
        state = "closed" if obj.closed_at else "open"
        return f"{obj.title}, season {obj.number} ({state})"

    def panel_context(self, request: HttpRequest, obj: Season) -> dict[str, Any]:
        """The first page of the standings (live, or the archive of a closed season) and the corrections."""
        if obj.closed_at is None:
            page = selectors.standings_live(season=obj, offset=0, limit=PAGE_ROWS)
            corrections: list[dict[str, Any]] = []
        else:
            page = selectors.standings_archived(season=obj, offset=0, limit=PAGE_ROWS, around=None)
            corrections = selectors.corrections_of(season=obj)
        return {
            "total": page.total,
            "rows": page.rows,
            "leagues": page.leagues,
            "corrections": corrections,
            "closed": obj.closed_at is not None,
            "shown": len(page.rows),
        }


def player_seasons(*, player: Player) -> list[dict[str, Any]]:
    """Each title's open season of the player as ``GET /api/v1/players/{player}/seasons/{game}/`` gives it: league,
    points, rank, each game's points and why, and the corrections of closed seasons."""
    return [
        selectors.player_season(title=title, player=player.handle)
        for title in selectors.player_season_titles(player_id=player.pk)
    ]


def void_season_corrections(*, game_ids: list[int]) -> list[dict[str, Any]]:
    """The correction lines a void's games caused in closed seasons, for its refund summary."""
    return selectors.corrections_for_games(game_ids=game_ids)
