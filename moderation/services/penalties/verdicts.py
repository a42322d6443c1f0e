"""A moderator's verdict on a flag or report that sanctions nobody: dismissing either, upholding a report
(docs/moderation.md, "Penalties"). A penalty, if any, is its own action."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from arena.models import Player
from moderation.models import AuditEntry, Flag, Report
from moderation.services.action_steps import audit_write, case_lock_open, case_resolve, note_required

Action = AuditEntry.Action


def flag_dismiss(*, moderator: AbstractBaseUser | None, flag: Flag, note: str) -> AuditEntry:
    """Not guilty: the flag is closed and stays closed until detection finds a suspect game it did not cite."""
    note = note_required(note)
    with transaction.atomic():
        locked = case_lock_open(Flag, flag)
        case_resolve(locked, Flag.Status.DISMISSED, moderator, note)
        players = [locked.beneficiary, *Player.objects.filter(fed_flags__flag=locked)]
        return audit_write(moderator=moderator, action=Action.DISMISS_FLAG, note=note, players=players, flags=[locked])


def _report_close(
    *, moderator: AbstractBaseUser | None, report: Report, status: str, action: str, note: str
) -> AuditEntry:
    """Either verdict on a report: closed under its lock, audited with the accused and the reported game."""
    with transaction.atomic():
        locked = case_lock_open(Report, report)
        case_resolve(locked, status, moderator, note)
        return audit_write(
            moderator=moderator,
            action=action,
            note=note,
            players=list(locked.accused.all()),
            reports=[locked],
            games=[locked.game] if locked.game else [],
        )


def report_dismiss(*, moderator: AbstractBaseUser | None, report: Report, note: str) -> AuditEntry:
    """The report is not upheld; it counts against the reporter's track record."""
    note = note_required(note)
    return _report_close(
        moderator=moderator, report=report, status=Report.Status.DISMISSED, action=Action.DISMISS_REPORT, note=note
    )


def report_uphold(*, moderator: AbstractBaseUser | None, report: Report, note: str = "") -> AuditEntry:
    """The moderator agrees with the reporter (a penalty, if any, is its own action); raises their track record."""
    return _report_close(
        moderator=moderator, report=report, status=Report.Status.UPHELD, action=Action.UPHOLD_REPORT, note=note
    )
