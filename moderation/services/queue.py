"""Working the queue: closing a flag or report as a duplicate of another, reopening one closed by mistake, and
claiming one (docs/moderation.md, "Working the queue").

A ring often raises two flags (one per title) and several reports: "duplicate of #N" closes the copies without
calling anyone "not guilty", and the case is judged once, on #N. A claim (as in Discourse's review queue) says who
is working a case so two moderators do not judge it at once; it lapses after ``CLAIM_FOR`` without anyone
releasing it, so a moderator who leaves holds nothing for long. Claiming never blocks an action: it is a notice.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena.models import Player
from infra.errors import Conflict, InvalidInput
from moderation.models import AuditEntry, Flag, Report
from moderation.services.action_steps import audit_write, case_lock_open, case_resolve
from moderation.services.related import case_accounts

# An hour: long enough to read a ring's evidence and act, short enough that an abandoned claim frees itself.
CLAIM_FOR = timedelta(hours=1)


def _targets(obj: Flag | Report, *others: Flag | Report) -> dict[str, Any]:
    kind = "flags" if isinstance(obj, Flag) else "reports"
    return {kind: [obj, *others]}


def _players(obj: Flag | Report) -> list[Player]:
    if isinstance(obj, Flag):
        return [obj.beneficiary, *(f.feeder for f in obj.feeders.select_related("feeder"))]
    return list(obj.accused.all())


def case_close_as_duplicate(
    *, moderator: AbstractBaseUser | None, obj: Flag | Report, of: int, note: str = ""
) -> AuditEntry:
    """Close ``obj`` (open) as the same case as flag or report ``of`` (the same kind, not itself).

    Only a related case is accepted: one that shares an account with ``obj`` (docs/moderation.md, "Mistakes the
    panel refuses"). A typo naming an unrelated ring is refused (400 ``duplicate_of_unrelated``), nothing closed.
    """
    model = type(obj)
    if of == obj.pk:
        raise InvalidInput(
            "duplicate_of_itself",
            f"A {model.__name__.lower()} cannot duplicate itself.",
            {"duplicate_of": "Name another one."},
        )
    with transaction.atomic():
        locked = case_lock_open(model, obj)
        original = model.objects.filter(pk=of).first()
        if original is None:
            raise InvalidInput(
                "duplicate_of_not_found", f"No {model.__name__.lower()} #{of}.", {"duplicate_of": "Unknown id."}
            )
        if not case_accounts(locked) & case_accounts(original):
            raise InvalidInput(
                "duplicate_of_unrelated",
                f"{model.__name__} #{of} shares no account with this one: not the same case.",
                {"duplicate_of": "Pick one of the related cases listed on this page."},
            )
        case_resolve(locked, model.Status.DUPLICATE, moderator, note)
        locked.duplicate_of = original
        locked.claimed_by, locked.claimed_until = None, None
        locked.save(update_fields=["duplicate_of", "claimed_by", "claimed_until"])
        return audit_write(
            moderator=moderator,
            action=AuditEntry.Action.CLOSE_DUPLICATE,
            note=note,
            players=_players(locked),
            details={"duplicate_of": original.pk},
            **_targets(locked, original),
        )


# What each closing did that reopening undoes (docs/moderation.md, "Reopening a case"). A ban or a reset a verdict
# made is not undone here: it has its own audited action (unban), which the moderator is told to take.
REOPENABLE = {
    Flag: (Flag.Status.DUPLICATE, Flag.Status.DISMISSED, Flag.Status.CONFIRMED),
    Report: (Report.Status.DUPLICATE, Report.Status.DISMISSED, Report.Status.UPHELD),
}


def case_reopen(*, moderator: AbstractBaseUser | None, obj: Flag | Report, note: str) -> AuditEntry:
    """Open again a case closed by mistake (as a duplicate, dismissed, or confirmed/upheld), audited.

    Undone: the duplicate link; the resolver, date and closing note (kept in the audit entry's details); for a
    report, its weight in the reporter's track record (which counts upheld and dismissed reports only). Refused for
    an open case (409 ``not_closed``), a case detection withdrew (409 ``not_reopenable``), and a flag whose
    beneficiary already has an open flag in the title (409 ``open_flag_exists``: one open flag per title).
    """
    model = type(obj)
    note = (note or "").strip()
    if not note:
        raise InvalidInput("note_required", "Say why the case is reopened.", {"note": "Required."})
    with transaction.atomic():
        locked = model.objects.select_for_update().get(pk=obj.pk)
        if locked.status == model.Status.OPEN:
            raise Conflict("not_closed", f"This {model.__name__.lower()} is open.")
        if locked.status not in REOPENABLE[model]:
            raise Conflict("not_reopenable", f"A {locked.status} {model.__name__.lower()} is not reopened by hand.")
        if (
            isinstance(locked, Flag)
            and Flag.objects.filter(
                beneficiary_id=locked.beneficiary_id, title=locked.title, status=Flag.Status.OPEN
            ).exists()
        ):
            raise Conflict("open_flag_exists", "This player already has an open flag in this title; work that one.")
        was = {
            "was": locked.status,
            "duplicate_of": locked.duplicate_of_id,
            "resolved_by": locked.resolved_by.get_username() if locked.resolved_by else None,
            "resolved_at": locked.resolved_at.isoformat() if locked.resolved_at else None,
            "closing_note": locked.note,
        }
        undone = ["status"] + (["duplicate_of"] if locked.duplicate_of_id else [])
        if isinstance(locked, Report) and locked.status in (Report.Status.DISMISSED, Report.Status.UPHELD):
            undone.append("reporter_track_record")
        locked.status, locked.duplicate_of = model.Status.OPEN, None
        locked.resolved_by, locked.resolved_at, locked.note = None, None, ""
        locked.save(update_fields=["status", "duplicate_of", "resolved_by", "resolved_at", "note"])
        return audit_write(
            moderator=moderator,
            action=AuditEntry.Action.REOPEN,
            note=note,
            players=_players(locked),
            details={**was, "undone": undone},
            **_targets(locked),
        )


def claim_holder(obj: Flag | Report, *, now: datetime | None = None) -> AbstractBaseUser | None:
    """Who holds the claim now (None when nobody does or it lapsed)."""
    now = now or timezone.now()
    if obj.claimed_by_id and obj.claimed_until and obj.claimed_until > now:
        return obj.claimed_by
    return None


def case_claim(*, moderator: AbstractBaseUser, obj: Flag | Report) -> AuditEntry:
    """Take an open flag or report for ``CLAIM_FOR``; refused while another moderator's claim runs. Taking it
    again extends one's own claim."""
    model = type(obj)
    now = timezone.now()
    with transaction.atomic():
        locked = case_lock_open(model, obj)
        current = claim_holder(locked, now=now)
        if current is not None and current.pk != moderator.pk:
            raise Conflict(
                "already_claimed",
                f"This {model.__name__.lower()} is held by {current.get_username()} "
                f"until {locked.claimed_until:%H:%M} UTC.",
            )
        locked.claimed_by, locked.claimed_until = moderator, now + CLAIM_FOR
        locked.save(update_fields=["claimed_by", "claimed_until"])
        obj.claimed_by, obj.claimed_until = locked.claimed_by, locked.claimed_until
        return audit_write(
            moderator=moderator,
            action=AuditEntry.Action.CLAIM,
            details={"until": locked.claimed_until.isoformat()},
            **_targets(locked),
        )


def case_claim_on_open(*, moderator: AbstractBaseUser, obj: Flag | Report) -> bool:
    """Acting on a case claims it (issue 27 §2, as Discourse claims a reviewable on the first action): opening an
    action's page on an open case nobody holds takes it for ``CLAIM_FOR``. A notice, not an action on anyone, so
    no audit entry (an explicit "Claim" keeps one); never taken from another moderator. True when taken."""
    model = type(obj)
    now = timezone.now()
    taken = (
        model.objects.filter(pk=obj.pk, status=model.Status.OPEN)
        .filter(Q(claimed_by__isnull=True) | Q(claimed_until__lte=now) | Q(claimed_until__isnull=True))
        .update(claimed_by=moderator, claimed_until=now + CLAIM_FOR)
    )
    if taken:
        obj.claimed_by, obj.claimed_until = moderator, now + CLAIM_FOR
    return bool(taken)


def case_release(*, moderator: AbstractBaseUser, obj: Flag | Report) -> AuditEntry:
    """Give back one's own claim (a lapsed or someone else's claim is not one's to release)."""
    model = type(obj)
    with transaction.atomic():
        locked = model.objects.select_for_update().get(pk=obj.pk)
        current = claim_holder(locked)
        if current is None or current.pk != moderator.pk:
            raise Conflict("not_claimed", f"You do not hold this {model.__name__.lower()}.")
        locked.claimed_by, locked.claimed_until = None, None
        locked.save(update_fields=["claimed_by", "claimed_until"])
        return audit_write(
            moderator=moderator, action=AuditEntry.Action.CLAIM, details={"released": True}, **_targets(locked)
        )
