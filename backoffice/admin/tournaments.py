"""The Tournament page (docs/tournaments.md#cancelling): moderators read a tournament (its players, rounds,
standings and voids) and can cancel it, through ``tournaments.services.tournament_cancel``, which keeps who and
why on the tournament."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import transaction
from django.http import HttpRequest
from django.utils.html import format_html_join

from backoffice.admin.base import PanelAdmin
from backoffice.admin.confirm import Action, RequiredNoteForm
from moderation.models import AuditEntry
from moderation.services.action_steps import audit_write
from tournaments.models import Tournament
from tournaments.selectors import tournament_present
from tournaments.services import tournament_cancel

CANCEL_CODENAME = "cancel_tournament"  # superusers now; for the Moderators group, moderation.moderators.ACTIONS


def _over(tournament: Tournament) -> str | None:
    if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        return f"This tournament is already {tournament.status}."
    return None


def _cancel(request: HttpRequest, tournament: Tournament, form: Any) -> str:
    """The cancellation and its audit entry in one transaction: the audit log lists it with the moderators' other
    actions (who, when, why), and a cancellation that fails leaves no entry."""
    reason = form.cleaned_data["note"]
    with transaction.atomic():
        cancelled = tournament_cancel(tournament_id=tournament.pk, by=request.user.get_username(), reason=reason)
        audit_write(
            moderator=request.user,
            action=AuditEntry.Action.CANCEL_TOURNAMENT,
            note=reason,
            details={
                "tournament": cancelled.pk,
                "name": cancelled.name,
                "game": cancelled.title,
                "round": cancelled.round,
            },
        )
    return f"Tournament #{tournament.pk} cancelled."


CANCEL = Action(
    codename=CANCEL_CODENAME,
    title="Cancel tournament",
    button="Cancel tournament",
    consequences=lambda t: [
        "The tournament stops where it is: no further round is paired, no result is taken.",
        "Your name and the reason are kept on the tournament and written to the audit log.",
    ],
    perform=_cancel,
    form=lambda obj, data: RequiredNoteForm(data),
    available=_over,
)


@admin.register(Tournament)
class TournamentAdmin(PanelAdmin):
    list_display = ("name", "title", "status", "round", "rounds", "starts_at", "server")
    list_filter = ("status", "title")
    search_fields = ("name",)
    fields = (
        "name",
        "title",
        "server",
        "status",
        "round",
        "rounds",
        "table_size",
        "starts_at",
        "started_at",
        "finished_at",
        "cancelled_by",
        "cancel_reason",
        "standings",
        "void_changes",
    )
    panel_actions = {"cancel": CANCEL}
    change_form_template = "admin/backoffice/tournament_change_form.html"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return list(self.fields)

    @admin.display(description="Standings")
    def standings(self, obj: Tournament) -> str:
        lines = tournament_present(obj)["standings"]
        if not lines:
            return "-"
        return format_html_join(
            "",
            "<div>{}. {}: {} points, Buchholz {}</div>",
            ((s["rank"], s["player"], s["points"], s["buchholz"]) for s in lines),
        )

    @admin.display(description="Voids")
    def void_changes(self, obj: Tournament) -> str:
        if not obj.voids:
            return "-"
        return format_html_join(
            "",
            "<div>game {}: {} out; {}</div>",
            (
                (
                    v["game"],
                    ", ".join(v["players"]) or "nobody",
                    "; ".join(f"{c['player']} {c['before']} → {c['after']}" for c in v["changes"]) or "no change",
                )
                for v in obj.voids
            ),
        )
