"""The Report page: the report (its player-written text escaped like everything else), the cited game, actions."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from backoffice.admin import reads
from backoffice.admin.base import PanelAdmin
from backoffice.admin.cases import OpenFirstStatusFilter, queue_actions, report_context
from backoffice.admin.confirm import Action, PrimaryForm, Ring, related_picked, with_policy
from backoffice.admin.players import ring_preview
from backoffice.admin.presets import ReportClosingForm, ReportDismissForm
from moderation import services
from moderation.models import Report
from moderation.selectors import earlier_confirmations, multiple_accounts_warnings
from moderation.services.reports import reporter_record


def _open_only(report: Report) -> str | None:
    return None if report.status == Report.Status.OPEN else f"This report is already {report.status}."


def _accounts_unavailable(report: Report) -> str | None:
    if _open_only(report):
        return _open_only(report)
    if report.accused.count() < 2:
        return "Confirming multiple accounts needs at least two accused accounts."
    return None


def _ring(report: Report) -> Ring:
    # The accused as the admin's queryset prefetched them (one read per page), in handle order.
    return Ring(obj=report, candidates=sorted(report.accused.all(), key=lambda p: p.handle))


def _dismiss(request: HttpRequest, report: Report, form: Any) -> str:
    services.report_dismiss(moderator=request.user, report=report, note=form.cleaned_data["note"])
    return f"Report #{report.pk} dismissed."


def _uphold(request: HttpRequest, report: Report, form: Any) -> str:
    services.report_uphold(moderator=request.user, report=report, note=form.cleaned_data["note"])
    return f"Report #{report.pk} upheld."


def _confirm(request: HttpRequest, ring: Ring, form: Any) -> str:
    primary = form.primary_player()
    entry = services.multiple_accounts_confirm(
        moderator=request.user,
        primary=primary,
        report=ring.obj,
        note=form.cleaned_data["note"],
        close_cases=related_picked(form),
    )
    return f"Confirmed: {', '.join(entry.details.get('secondaries', []))} banned, {primary.handle} reset to R0."


def _confirm_warnings(ring: Ring) -> list[str]:
    return [
        *earlier_confirmations(accounts=ring.candidates),
        *with_policy(multiple_accounts_warnings(accounts=ring.candidates)),
    ]


REPORT_ACTIONS = {
    "uphold": Action(
        codename="uphold_report",
        title="Uphold",
        button="Uphold this report",
        danger=False,
        consequences=lambda r: [
            "mark the report upheld (it raises the reporter's track record); any penalty is "
            "its own action on the player's or game's page."
        ],
        perform=_uphold,
        form=lambda r, data: ReportClosingForm(data),
        available=_open_only,
    ),
    "confirm": Action(
        codename="confirm_multiple_accounts",
        title="Confirm multiple accounts",
        button="Confirm and ban",
        consequences=lambda ring: [
            f"treat {', '.join(p.handle for p in ring.candidates)} as one person, whose primary you choose below;",
            "ban every other account at once, everywhere, and reset the primary's Elo to R0 in every game;",
            "mark the report upheld.",
        ],
        warnings=_confirm_warnings,
        perform=_confirm,
        available=_accounts_unavailable,
        prepare=_ring,
        preview=lambda ring: ring_preview(ring.candidates),
        form=lambda ring, data: PrimaryForm(data, candidates=ring.candidates, case=ring.obj),
    ),
    "dismiss": Action(
        codename="dismiss",
        title="Dismiss",
        button="Dismiss this report",
        danger=False,
        consequences=lambda r: ["close the report as not upheld (it lowers the reporter's track record)."],
        perform=_dismiss,
        form=lambda r, data: ReportDismissForm(data),
        available=_open_only,
    ),
    **queue_actions("report", "it counts for no track record, and the case is judged on the other report.", _open_only),
}


@admin.register(Report)
class ReportAdmin(PanelAdmin):
    list_display = ("id", "reason", "accused_list", "reporter", "status", "held_by", "score", "created_at")
    list_filter = (OpenFirstStatusFilter, "reason")
    list_select_related = ("reporter", "claimed_by")
    search_fields = ("reporter__handle",)  # shows the search box; PanelAdmin's handle search answers it
    handle_search = "reporter__handle"
    search_help_text = "The reporter's player id (exact, or the start of one)."
    fields = ("reporter", "reason", "status", "score", "server", "created_at", "resolved_at", "resolved_by")
    ordering = ("-score", "created_at")
    change_form_template = "admin/backoffice/report_change_form.html"
    panel_actions = REPORT_ACTIONS

    def get_queryset(self, request: HttpRequest) -> QuerySet[Report]:
        return super().get_queryset(request).select_related("reporter", "game").prefetch_related("accused")

    @admin.display(description="Accused")
    def accused_list(self, report: Report) -> str:
        return ", ".join(sorted(p.handle for p in report.accused.all()))

    @admin.display(description="Held by")
    def held_by(self, report: Report) -> str:
        current = services.claim_holder(report)
        return current.get_username() if current else ""

    def panel_subtitle(self, obj: Report) -> str:
        return f"Report #{obj.pk}: {obj.get_reason_display().lower()} by {obj.reporter.handle} ({obj.status})"

    def panel_context(self, request: HttpRequest, obj: Report) -> dict[str, Any]:
        record = reporter_record(reporter=obj.reporter)
        return {
            "accused": list(obj.accused.all().order_by("handle")),
            "reasons": obj.reasons or [obj.reason],
            "reporter_record": f"track record {record * 100:.0f} % upheld",
            "game": reads.game_page(game=obj.game) if obj.game_id else None,
            "audit": list(obj.audit_entries.select_related("moderator").order_by("-created_at")),
            "case": report_context(report=obj),
        }
