"""Confirming multiple accounts: one person, several accounts (docs/moderation.md, "Penalties"). The secondaries are
banned, the primary reset to R0 in every title, and the related open cases it settles closed in the same step.

A ban goes through the core's ``player_status_ban``, which announces ``PlayerStatusChanged`` after the commit: the
leaderboards drop the player and matchmaking cancels their waiting tickets itself when it listens, so this module
needs no call into matchmaking (and works the same with or without it installed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from arena.models import Player
from arena.players import player_status_ban
from infra.errors import InvalidInput
from moderation.models import AuditEntry, BanTerm, Flag, Report
from moderation.services.action_steps import audit_write, case_lock_open, case_resolve, retried, statuses_lock
from moderation.services.related import Case, cases_close_covered
from ratings.config import elo_config
from ratings.resets import rating_reset

Action = AuditEntry.Action


@retried
def multiple_accounts_confirm(
    *,
    moderator: AbstractBaseUser | None,
    primary: Player,
    accounts: Sequence[Player] | None = None,
    flag: Flag | None = None,
    report: Report | None = None,
    note: str = "",
    close_cases: Sequence[Case] = (),
) -> AuditEntry:
    """One person, several accounts: ban every account but ``primary``, reset the primary to R0 everywhere.

    ``accounts`` is the whole set the moderator judged to be one person (``primary`` among them); by default the
    flag's ring (beneficiary and feeders) or the report's accused. The primary's reset is a ``reset`` history
    entry in every title it has a rating in; its game counts are kept (docs/ratings.md). The secondaries' games stay
    as they are: voiding them, which refunds their victims, is a separate and deliberate action. ``close_cases``:
    the other open flags and reports these accounts settle, closed in the same transaction (``related``).
    """
    with transaction.atomic():
        locked_flag = case_lock_open(Flag, flag) if flag is not None else None
        locked_report = case_lock_open(Report, report) if report is not None else None
        if accounts is None:  # read under the flag's lock: detection rewrites an open flag's feeders under it
            accounts = []
            if locked_flag is not None:
                accounts = [locked_flag.beneficiary, *Player.objects.filter(fed_flags__flag=locked_flag)]
            elif locked_report is not None:
                accounts = list(locked_report.accused.all())
        group = {p.pk: p for p in [*accounts, primary]}
        if primary.pk not in {p.pk for p in accounts}:
            raise InvalidInput(
                "primary_not_in_accounts",
                "The primary must be one of the accounts confirmed.",
                {"primary": "Pick one of the accounts."},
            )
        secondaries = [p for pk, p in sorted(group.items()) if pk != primary.pk]
        if not secondaries:
            raise InvalidInput(
                "no_secondary_accounts",
                "Confirming multiple accounts needs at least two accounts.",
                {"accounts": "Name the secondary accounts."},
            )
        # Who is banned already is decided on the locked rows, never on the moderator's page: a ban committed
        # meanwhile (another moderator, another flag of the ring) is neither repeated nor claimed by this entry.
        statuses_lock([primary, *secondaries])
        banned = []
        for player in secondaries:
            if not player.is_banned:
                player_status_ban(player=player)
                banned.append(player.handle)
        # A secondary account is banned for good: a timed ban it was serving does not lift it any more.
        BanTerm.objects.filter(player__in=secondaries).delete()
        resets = rating_reset(player=primary)
        if locked_flag is not None:
            case_resolve(locked_flag, Flag.Status.CONFIRMED, moderator, note)
        if locked_report is not None:
            case_resolve(locked_report, Report.Status.UPHELD, moderator, note)
        more_flags, more_reports = cases_close_covered(
            cases=close_cases,
            accounts=group,
            moderator=moderator,
            note=note,
            by=f"the confirmation of {', '.join(sorted(p.handle for p in group.values()))} as one person",
        )
        details = {
            "primary": primary.handle,
            "secondaries": [p.handle for p in secondaries],
            "banned": banned,
            "resets": [{"title": r.title, "before": r.before, "after": elo_config().initial} for r in resets],
            **closed_with(more_flags, more_reports),
        }
        return audit_write(
            moderator=moderator,
            action=Action.CONFIRM_MULTIPLE_ACCOUNTS,
            note=note,
            players=[primary, *secondaries],
            flags=[*([locked_flag] if locked_flag else []), *more_flags],
            reports=[*([locked_report] if locked_report else []), *more_reports],
            details=details,
        )


def closed_with(flags: Sequence[Flag], reports: Sequence[Report]) -> dict[str, Any]:
    """The audit entry's record of the related cases an action closed (empty when none were ticked)."""
    if not flags and not reports:
        return {}
    return {"closed_with": {"flags": [f.pk for f in flags], "reports": [r.pk for r in reports]}}
