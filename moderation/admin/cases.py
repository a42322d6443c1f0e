"""Context on every case page (issue 20 §4): related open flags, who holds the case, what it duplicates; on a
report, how the accused and the reporter are linked and what the reporter's record really is.

Reads only, one function per page section; the flag and report pages add them to their ``panel`` context and
render them through their own templates (``case_context.html``, ``report_context.html``).
"""
from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import Count, Q

from arena.models import Player
from moderation import rules
from moderation.admin.confirm import NoteForm
from moderation.models import Flag, FlagFeeder, Link, Report
from moderation.services import holder


class DuplicateForm(NoteForm):
    """Which flag or report this one repeats; the case is judged once, on that one."""

    duplicate_of = forms.IntegerField(label="Duplicate of #", min_value=1)
    field_order = ("duplicate_of", "note")


class ClaimForm(forms.Form):
    """Claiming takes no input: the button is the whole form."""


def flag_accounts(flag: Flag) -> set[int]:
    return {flag.beneficiary_id, *FlagFeeder.objects.filter(flag=flag).values_list("feeder_id", flat=True)}


def related_flags(*, accounts: set[int], exclude: int | None = None) -> list[Flag]:
    """Open flags whose beneficiary or feeders include any of ``accounts`` (one ring feeding several titles)."""
    flags = (Flag.objects.filter(status=Flag.Status.OPEN).filter(Q(beneficiary_id__in=accounts)
                                                                  | Q(feeders__feeder_id__in=accounts))
             .select_related("beneficiary").distinct().order_by("-score", "pk"))
    return [f for f in flags if f.pk != exclude]


def claim_context(obj: Flag | Report) -> dict[str, Any]:
    current = holder(obj)
    return {"holder": current.get_username() if current else None, "until": obj.claimed_until if current else None}


def flag_context(*, flag: Flag) -> dict[str, Any]:
    return {"related_flags": related_flags(accounts=flag_accounts(flag), exclude=flag.pk),
            "claim": claim_context(flag), "duplicate_of": flag.duplicate_of}


def reporter_history(*, reporter: Player) -> str:
    """"no history" when none of their reports was resolved; below ``rules.MIN_REPORTS_FOR_RECORD`` resolved, the
    counts (the score treats them as neutral); from there, the share upheld."""
    counts = Report.objects.filter(reporter=reporter).aggregate(
        upheld=Count("pk", filter=Q(status=Report.Status.UPHELD)),
        dismissed=Count("pk", filter=Q(status=Report.Status.DISMISSED)))
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
    links = [{"a": handles[lk.player_a_id], "b": handles[lk.player_b_id], "kind": lk.kind, "keys": lk.keys,
              "first_seen": lk.first_seen, "last_seen": lk.last_seen,
              "with_reporter": report.reporter_id in (lk.player_a_id, lk.player_b_id)}
             for lk in Link.objects.filter(player_a_id__in=ids, player_b_id__in=ids).order_by("first_seen")]
    return {"links": links, "related_flags": related_flags(accounts={p.pk for p in accused}),
            "claim": claim_context(report), "duplicate_of": report.duplicate_of,
            "reporter_history": reporter_history(reporter=report.reporter)}
