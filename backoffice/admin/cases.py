"""Context on every case page (issue 20 §4): related open flags, who holds the case, what it duplicates; on a
report, how the accused and the reporter are linked and what the reporter's record really is.

Reads only, one function per page section; the flag and report pages add them to their ``panel`` context and
render them through their templates (``case_context.html``, and the report's links in ``report_change_form.html``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, Q

from arena.models import Player
from backoffice.admin.confirm import Action, NoteForm, RequiredNoteForm, case_label
from moderation import rules, services
from moderation.models import Flag, FlagFeeder, Link, Report
from moderation.services import claim_holder


class DuplicateForm(NoteForm):
    """Which flag or report this one repeats; the case is judged once, on that one.

    Only the related cases are offered (the same kind, sharing an account with this one: the ones the page lists),
    each labelled with what it is about, so the choice is previewed before the button (docs/moderation.md,
    "Mistakes the panel refuses"); nothing is preselected. The service refuses an unrelated one all the same.
    """

    duplicate_of = forms.TypedChoiceField(
        label="Duplicate of", coerce=int, error_messages={"required": "Choose the case this one repeats."}
    )
    field_order = ("duplicate_of", "note")

    def __init__(self, obj: Flag | Report, data: dict | None = None) -> None:
        super().__init__(data)
        self.fields["duplicate_of"].choices = [("", "Choose a related case…")] + [
            (case.pk, case_label(case)) for case in related_cases(obj)
        ]


def related_cases(obj: Flag | Report, limit: int = 20) -> list[Flag | Report]:
    """Cases of the same kind sharing an account with ``obj`` (any status, not itself), newest first."""
    accounts = services.case_accounts(obj)
    if isinstance(obj, Flag):
        found = Flag.objects.filter(Q(beneficiary_id__in=accounts) | Q(feeders__feeder_id__in=accounts)).select_related(
            "beneficiary"
        )
    else:
        found = Report.objects.filter(accused__in=accounts).prefetch_related("accused")
    return list(found.exclude(pk=obj.pk).distinct().order_by("-pk")[:limit])


class ReopenForm(RequiredNoteForm):
    """Why the case is opened again (required: the audit log says why a verdict was taken back)."""


class ClaimForm(forms.Form):
    """Claiming takes no input: the button is the whole form."""


def flag_accounts(flag: Flag) -> set[int]:
    return {flag.beneficiary_id, *FlagFeeder.objects.filter(flag=flag).values_list("feeder_id", flat=True)}


def related_flags(*, accounts: set[int], exclude: int | None = None) -> list[Flag]:
    """Open flags whose beneficiary or feeders include any of ``accounts`` (one ring feeding several titles)."""
    flags = (
        Flag.objects.filter(status=Flag.Status.OPEN)
        .filter(Q(beneficiary_id__in=accounts) | Q(feeders__feeder_id__in=accounts))
        .select_related("beneficiary")
        .distinct()
        .order_by("-score", "pk")
    )
    return [f for f in flags if f.pk != exclude]


def claim_context(obj: Flag | Report) -> dict[str, Any]:
    current = claim_holder(obj)
    return {"holder": current.get_username() if current else None, "until": obj.claimed_until if current else None}


def flag_context(*, flag: Flag) -> dict[str, Any]:
    return {
        "related_flags": related_flags(accounts=flag_accounts(flag), exclude=flag.pk),
        "claim": claim_context(flag),
        "duplicate_of": flag.duplicate_of,
    }


def reporter_history(*, reporter: Player) -> str:
    """ "no history" when none of their reports was resolved; below ``rules.MIN_REPORTS_FOR_RECORD`` resolved, the
    counts (the score treats them as neutral); from there, the share upheld."""
    counts = Report.objects.filter(reporter=reporter).aggregate(
        upheld=Count("pk", filter=Q(status=Report.Status.UPHELD)),
        dismissed=Count("pk", filter=Q(status=Report.Status.DISMISSED)),
    )
    upheld, dismissed = counts["upheld"], counts["dismissed"]
    resolved = upheld + dismissed
    if resolved == 0:
        return "no history"
    if resolved < rules.MIN_REPORTS_FOR_RECORD:
        return f"little history: {upheld} upheld, {dismissed} dismissed (counted as neutral)"
    return f"track record {rules.track_record(upheld, dismissed) * 100:.0f} % upheld ({upheld} of {resolved})"


def report_context(*, report: Report) -> dict[str, Any]:
    """Links between the accused and the reporter (kind, dates), related open flags, the claim."""
    accused = list(report.accused.all())
    ids = sorted({report.reporter_id, *(p.pk for p in accused)})
    handles = {p.pk: p.handle for p in [report.reporter, *accused]}
    links = [
        {
            "a": handles[lk.player_a_id],
            "b": handles[lk.player_b_id],
            "kind": lk.kind,
            "keys": lk.keys,
            "first_seen": lk.first_seen,
            "last_seen": lk.last_seen,
            "with_reporter": report.reporter_id in (lk.player_a_id, lk.player_b_id),
        }
        for lk in Link.objects.filter(player_a_id__in=ids, player_b_id__in=ids).order_by("first_seen")
    ]
    return {
        "links": links,
        "related_flags": related_flags(accounts={p.pk for p in accused}),
        "claim": claim_context(report),
        "duplicate_of": report.duplicate_of,
        "reporter_history": reporter_history(reporter=report.reporter),
    }


def queue_actions(noun: str, duplicate_means: str, available: Any) -> dict[str, Action]:
    """The queue's own actions, alike on a flag and a report (docs/moderation.md): close as a duplicate of #N,
    claim for an hour, release. ``noun`` names the case in buttons and messages; ``duplicate_means`` says what the
    duplicate's closing does to it; ``available`` refuses them on a closed case."""
    title = noun.capitalize()

    def duplicate(request: Any, obj: Any, form: Any) -> str:
        of = form.cleaned_data["duplicate_of"]
        services.case_close_as_duplicate(moderator=request.user, obj=obj, of=of, note=form.cleaned_data["note"])
        return f"{title} #{obj.pk} closed as a duplicate of #{of}."

    def reopen(request: Any, obj: Any, form: Any) -> str:
        entry = services.case_reopen(moderator=request.user, obj=obj, note=form.cleaned_data["note"])
        return f"{title} #{obj.pk} reopened (it was {entry.details['was']})."

    def claim(request: Any, obj: Any, form: Any) -> str:
        entry = services.case_claim(moderator=request.user, obj=obj)
        return f"You hold {noun} #{obj.pk} until {entry.details['until'][11:16]} UTC."

    def release(request: Any, obj: Any, form: Any) -> str:
        services.case_release(moderator=request.user, obj=obj)
        return f"{title} #{obj.pk} released."

    return {
        "duplicate": Action(
            codename="dismiss",
            title="Duplicate of…",
            button="Close as a duplicate",
            danger=False,
            consequences=lambda obj: [f"close this {noun} as the same case as the {noun} you name: {duplicate_means}"],
            perform=duplicate,
            form=lambda obj, data: DuplicateForm(obj, data),
            available=available,
        ),
        "reopen": Action(
            codename="dismiss",
            title="Reopen",
            button=f"Reopen this {noun}",
            danger=False,
            consequences=lambda obj: [
                f"open this {noun} again: its closing (status, resolver, note, duplicate link) is undone and kept "
                "in the audit log.",
                "a ban or reset the verdict made stays: lift it from the player's page (unban) if it was wrong.",
            ],
            perform=reopen,
            form=lambda obj, data: ReopenForm(data),
            available=lambda obj: None
            if obj.status in services.REOPENABLE[type(obj)]
            else f"Only a {noun} closed by a moderator is reopened.",
        ),
        "claim": Action(
            codename="claim",
            title="Claim",
            button=f"Claim this {noun}",
            danger=False,
            consequences=lambda obj: [f"hold this {noun} for an hour: other moderators see that you are working it."],
            perform=claim,
            form=lambda obj, data: ClaimForm(data),
            available=available,
        ),
        "release": Action(
            codename="claim",
            title="Release",
            button=f"Release this {noun}",
            danger=False,
            consequences=lambda obj: [f"give this {noun} back to the queue."],
            perform=release,
            form=lambda obj, data: ClaimForm(data),
            available=lambda obj: None if services.claim_holder(obj) else f"Nobody holds this {noun}.",
        ),
    }


class OpenFirstStatusFilter(admin.SimpleListFilter):
    """A queue's status filter that opens on the open cases (issue 27 §4: a queue lists what is left to do);
    "All" is a choice of its own rather than the absence of one."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request: Any, model_admin: Any) -> list[tuple[str, str]]:
        return [*model_admin.model.Status.choices, ("all", "All")]

    def queryset(self, request: Any, queryset: Any) -> Any:
        value = self.value() or "open"
        return queryset if value == "all" else queryset.filter(status=value)

    def choices(self, changelist: Any) -> Any:
        current = self.value() or "open"
        for lookup, title in self.lookup_choices:
            yield {
                "selected": current == str(lookup),
                "display": title,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
            }
