"""Banning and unbanning one account, and the end of a timed ban (docs/moderation.md, "Penalties", "Timed bans").

A timed ban keeps a ``BanTerm``; whatever lifts it when its term is past (the beat's sweep, the embedded web
process's timer) goes through ``bans_expired_lift``, so a ban is lifted once and audited the same way whoever
noticed first.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from arena.models import Player
from arena.players import player_status_ban, player_status_unban
from infra import handoffs
from infra.errors import Conflict, InvalidInput
from moderation.models import AuditEntry, BanTerm
from moderation.services.action_steps import audit_write, note_required, retried, statuses_lock
from moderation.services.penalties.multiple_accounts import closed_with
from moderation.services.related import Case, cases_close_covered

Action = AuditEntry.Action


@retried
def player_ban(
    *,
    moderator: AbstractBaseUser | None,
    player: Player,
    note: str,
    duration: timedelta | None = None,
    close_cases: Sequence[Case] = (),
) -> AuditEntry:
    """Ban one account: off the boards, refused by matchmaking, its new games rated for nobody.

    With ``duration`` the ban is timed: a ``BanTerm`` says when it ends, and the beat lifts it then
    (``lift_expired_bans``, an audited unban). Without, it lasts until a moderator lifts it. ``close_cases``: the
    open flags and reports the ban settles (all their accounts banned now), closed in the same transaction."""
    note = note_required(note)
    if duration is not None and duration <= timedelta(0):
        raise InvalidInput("invalid_duration", "A timed ban lasts a positive time.", {"duration": "Must be > 0."})
    with transaction.atomic():
        statuses_lock([player])
        if player.is_banned:
            raise Conflict("already_banned", f"{player.handle} is already banned.")
        player_status_ban(player=player)
        until = timezone.now() + duration if duration is not None else None
        flags, reports = cases_close_covered(
            cases=close_cases, accounts={player.pk}, moderator=moderator, note=note, by=f"the ban of {player.handle}"
        )
        entry = audit_write(
            moderator=moderator,
            action=Action.BAN,
            note=note,
            players=[player],
            flags=flags,
            reports=reports,
            details={"until": until.isoformat() if until else None, **closed_with(flags, reports)},
        )
        if until is not None:
            BanTerm.objects.update_or_create(player=player, defaults={"until": until, "entry": entry})
            handoffs.hand_off(ban_terms_due, duration.total_seconds() if duration else 0.0)
        return entry


# A timed ban's end, handed to moderation's tasks after the commit: with a beat its sweep lifts the ban; embedded
# (no beat) a timer in this process runs the same sweep when the term ends (``moderation.tasks.ban_term_timer``).
ban_terms_due = handoffs.HandOff("moderation: lift a timed ban when its term ends")


@retried
def player_unban(*, moderator: AbstractBaseUser | None, player: Player, note: str) -> AuditEntry:
    """Lift a ban (with a note: the audit log says why); the player's games from now on are rated again."""
    note = note_required(note)
    with transaction.atomic():
        statuses_lock([player])
        if not player.is_banned:
            raise Conflict("not_banned", f"{player.handle} is not banned.")
        player_status_unban(player=player)
        BanTerm.objects.filter(player=player).delete()
        return audit_write(moderator=moderator, action=Action.UNBAN, note=note, players=[player])


def bans_expired_lift(*, now: datetime | None = None) -> list[AuditEntry]:
    """The beat's sweep: every timed ban whose term is past is lifted, each as an audited ``unban`` by the system
    (no moderator), in its own transaction. Safe to run twice or at once: terms are locked and skipped if taken,
    and a term whose player is no longer banned (lifted by hand meanwhile) is simply removed."""
    now = now or timezone.now()
    lifted = []
    for player_id in list(BanTerm.objects.filter(until__lte=now).order_by("until").values_list("player_id", flat=True)):
        with transaction.atomic():
            term = (
                BanTerm.objects.select_for_update(skip_locked=True)
                .filter(player_id=player_id, until__lte=now)
                .select_related("player")
                .first()
            )
            if term is None:
                continue
            player = term.player
            statuses_lock([player])
            until = term.until
            term.delete()
            if not player.is_banned:
                continue
            player_status_unban(player=player)
            lifted.append(
                audit_write(
                    moderator=None,
                    action=Action.UNBAN,
                    players=[player],
                    note=f"The timed ban ended ({until:%Y-%m-%d %H:%M} UTC).",
                    details={"ban_ended": until.isoformat()},
                )
            )
    return lifted


def ban_term_next_end(*, now: datetime | None = None) -> datetime | None:
    """When the soonest timed ban still in force ends, or None: what an embedded web process sets its one timer by
    after a restart, and again after each sweep (``moderation.tasks.ban_terms_resume``), so a term ends on time
    whichever process banned the player and however often the process was restarted since."""
    now = now or timezone.now()
    until: datetime | None = (
        BanTerm.objects.filter(until__gt=now).order_by("until").values_list("until", flat=True).first()
    )
    return until
