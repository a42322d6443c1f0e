"""Resetting a player's ratings to R0 by hand (docs/moderation.md, "Penalties": "every title goes to R0")."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from arena.models import Player
from moderation.models import AuditEntry
from moderation.services.action_steps import audit_write, retried
from ratings.config import elo_config
from ratings.resets import rating_reset

Action = AuditEntry.Action


@retried
def player_reset(
    *, moderator: AbstractBaseUser | None, player: Player, titles: Sequence[str] | None = None, note: str = ""
) -> AuditEntry:
    """Reset a player's Elo to R0 in every title (or ``titles``) as ``reset`` history entries."""
    with transaction.atomic():
        resets = rating_reset(player=player, titles=titles)
        details = {"resets": [{"title": r.title, "before": r.before, "after": elo_config().initial} for r in resets]}
        return audit_write(moderator=moderator, action=Action.RESET, note=note, players=[player], details=details)
