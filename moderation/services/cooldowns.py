"""Lifting a quit cool-down (docs/matchmaking.md, "Cool-down"; docs/moderation.md): one transaction, one audit
entry. The cool-down itself is the ratings app's (``ratings.cooldowns.cooldown_lift``)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from arena.models import Player
from moderation.models import AuditEntry
from moderation.services.action_steps import audit_write, note_required
from ratings.cooldowns import cooldown_lift


def player_cooldown_lift(*, moderator: AbstractBaseUser | None, player: Player, note: str) -> AuditEntry:
    """End ``player``'s running cool-down now, with a note; 409 ``no_cooldown`` when none runs. The audit entry's
    details keep what was lifted: ``{"until", "seconds_left", "length_seconds"}``."""
    note = note_required(note)
    with transaction.atomic():
        lifted = cooldown_lift(player=player)
        return audit_write(
            moderator=moderator, action=AuditEntry.Action.LIFT_COOLDOWN, note=note, players=[player], details=lifted
        )
