"""The audit log in the admin: who, when, action, targets, note. Read-only for everyone, superusers included."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from backoffice.admin import reads
from backoffice.admin.base import PanelAdmin
from backoffice.admin.seasons import void_season_corrections
from moderation.models import AuditEntry

TARGET_GAMES = 3


@admin.register(AuditEntry)
class AuditEntryAdmin(PanelAdmin):
    """Nobody adds, changes or deletes an entry here: ``PanelAdmin`` refuses all three to every user, and the
    services are the only writers."""

    list_display = ("created_at", "moderator_name", "action", "targets", "note")
    # Filter by moderator (issue 27 §4): the name kept with each entry, so a deleted account's actions still
    # filter; the system's own actions (a timed ban lifted by the beat) have an empty name.
    list_filter = ("action", "moderator_name")
    list_select_related = ("moderator",)
    search_fields = ("players__handle",)
    search_help_text = "A player id (exact): the actions that concerned that player."
    fields = ("created_at", "moderator_name", "moderator", "action", "targets", "note", "details")
    readonly_fields = fields
    date_hierarchy = "created_at"
    change_form_template = "admin/backoffice/auditentry_change_form.html"

    def panel_context(self, request: HttpRequest, obj: AuditEntry) -> dict[str, Any]:
        """A void's one refund summary (``reads.void_summary``), the page every voided game links to."""
        if obj.action != AuditEntry.Action.VOID_GAMES:
            return {}
        game_ids = [game.pk for game in obj.games.all()]
        return {"summary": reads.void_summary(obj), "season_corrections": void_season_corrections(game_ids=game_ids)}

    def get_readonly_fields(self, request: HttpRequest, obj: AuditEntry | None = None) -> tuple[str, ...]:
        return self.get_fields(request, obj)

    def get_fields(self, request: HttpRequest, obj: AuditEntry | None = None) -> tuple[str, ...]:
        """A superuser's edit of keys, callbacks or the Hanabot table is the superusers' business: moderators see
        that it happened, by whom and when, never its details (issue 25 §1.8)."""
        if obj is not None and obj.action == AuditEntry.Action.ADMIN_EDIT and not request.user.is_superuser:
            return tuple(name for name in self.fields if name != "details")
        return self.fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[AuditEntry]:
        return super().get_queryset(request).prefetch_related("players", "games", "flags", "reports")

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[AuditEntry], search_term: str
    ) -> tuple[QuerySet[AuditEntry], bool]:
        term = search_term.strip()
        if not term:
            return queryset, False
        return queryset.filter(players__handle=term).distinct(), True

    @admin.display(description="Targets")
    def targets(self, entry: AuditEntry) -> str:
        """Links to every player, game, flag and report the action concerned (names escaped by format_html)."""
        items = [(f"/admin/arena/player/{p.pk}/change/", p.handle) for p in entry.players.all()]
        items += [(f"/admin/moderation/flag/{f.pk}/change/", f"flag #{f.pk}") for f in entry.flags.all()]
        items += [(f"/admin/moderation/report/{r.pk}/change/", f"report #{r.pk}") for r in entry.reports.all()]
        games = list(entry.games.all())
        # Games by their table id (what the game server and the players know); a void of 100 games is summed up
        # after the first few, so the row stays one line wide (its page lists them all).
        items += [(f"/admin/arena/game/{g.pk}/change/", f"{g.title} {g.table_id}") for g in games[:TARGET_GAMES]]
        shown = format_html_join(", ", '<a href="{}">{}</a>', items)
        if len(games) > TARGET_GAMES:
            more = format_html(
                '<a href="/admin/moderation/auditentry/{}/change/">and {} more games</a>',
                entry.pk,
                len(games) - TARGET_GAMES,
            )
            return format_html("{}, {}", shown, more)
        return shown
