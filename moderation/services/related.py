"""The cases an action settles: closing, in the same step, every open flag and report whose accounts a ring's
confirmation or a ban covers (issue 27 §2, lichess's "process related reports"; docs/moderation.md, "One step
closes a case").

A case is *covered* when every account it is about (a flag's beneficiary and feeders, a report's accused) is one
the action judged or is banned already: nothing in it is left to judge. The panel offers those cases with
checkboxes (all ticked); the action's service closes the ticked ones inside its own transaction, as resolved by
that action (a flag ``confirmed``, a report ``upheld``), and names them in its audit entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q
from django.utils import timezone

from arena.models import Player
from infra.errors import Conflict
from moderation.models import Flag, FlagFeeder, Report

Case = Flag | Report


def case_accounts(obj: Case) -> set[int]:
    """The accounts a case is about: a flag's beneficiary and feeders, a report's accused (prefetched or not)."""
    if isinstance(obj, Flag):
        return {obj.beneficiary_id, *FlagFeeder.objects.filter(flag=obj).values_list("feeder_id", flat=True)}
    if "accused" in getattr(obj, "_prefetched_objects_cache", {}):
        return {p.pk for p in obj.accused.all()}
    return set(obj.accused.values_list("pk", flat=True))


def _covered(obj: Case, accounts: set[int]) -> bool:
    rest = case_accounts(obj) - accounts
    return not rest or not Player.objects.filter(pk__in=rest).exclude(status=Player.Status.BANNED).exists()


def covered_open_cases(*, accounts: Iterable[int], exclude: Case | None = None) -> list[Case]:
    """Open flags then open reports that share an account with ``accounts`` and are covered by them (read for
    the panel's checkboxes; checked again under locks when closed)."""
    ids = set(accounts)
    flags = (
        Flag.objects.filter(status=Flag.Status.OPEN)
        .filter(Q(beneficiary_id__in=ids) | Q(feeders__feeder_id__in=ids))
        .select_related("beneficiary")
        .distinct()
        .order_by("pk")
    )
    reports = (
        Report.objects.filter(status=Report.Status.OPEN, accused__in=ids)
        .prefetch_related("accused")
        .distinct()
        .order_by("pk")
    )
    if isinstance(exclude, Flag):
        flags = flags.exclude(pk=exclude.pk)
    elif isinstance(exclude, Report):
        reports = reports.exclude(pk=exclude.pk)
    return [c for c in [*flags, *reports] if _covered(c, ids)]


def cases_close_covered(
    *, cases: Sequence[Case], accounts: Iterable[int], moderator: AbstractBaseUser | None, note: str, by: str
) -> tuple[list[Flag], list[Report]]:
    """Close ``cases`` as resolved by the action described in ``by`` (inside the caller's transaction, after its
    bans). Each is locked and must still be open and covered, or the whole action is refused (409), nothing done:
    the moderator ticked it on a page that is now stale."""
    ids = set(accounts)
    flags: list[Flag] = []
    reports: list[Report] = []
    now = timezone.now()
    for case in sorted(cases, key=lambda c: (isinstance(c, Report), c.pk)):
        model = type(case)
        locked = model.objects.select_for_update().get(pk=case.pk)
        name = f"{model.__name__.lower()} #{locked.pk}"
        if locked.status != model.Status.OPEN:
            raise Conflict("related_case_closed", f"The {name} you ticked is {locked.status} already; nothing done.")
        if not _covered(locked, ids):
            raise Conflict(
                "related_case_not_covered", f"The {name} is about accounts this action does not settle; nothing done."
            )
        locked.status = Flag.Status.CONFIRMED if isinstance(locked, Flag) else Report.Status.UPHELD
        locked.resolved_by, locked.resolved_at = moderator, now
        locked.note = f"Resolved with {by}." + (f" {note}" if note else "")
        locked.claimed_by, locked.claimed_until = None, None
        locked.save(update_fields=["status", "resolved_by", "resolved_at", "note", "claimed_by", "claimed_until"])
        (flags if isinstance(locked, Flag) else reports).append(locked)
    return flags, reports
