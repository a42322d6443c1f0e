"""A player's quit cool-down as stored (``ratings.models.Reputation``): read for the panel, lifted by a moderator.

The rules are ``ratings.reputation``'s (docs/matchmaking.md, "Cool-down"); the Elo stage starts cool-downs, this
module only reads one and ends one early.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from arena.models import Player
from infra.errors import Conflict
from ratings import reputation
from ratings.models import Reputation


def cooldown_state(*, player: Player, now: datetime | None = None) -> dict[str, Any]:
    """Reputation and cool-down of one player, for the panel: one query."""
    row = Reputation.objects.filter(player=player).first()
    now = now or timezone.now()
    if row is None:
        return {"reputation": reputation.reputation(""), "running": False, "seconds_left": 0, "row": None}
    state = reputation.Cooldown(row.cooldown_until)
    left = reputation.seconds_left(state, now)
    return {"reputation": reputation.reputation(row.recent), "running": left > 0, "seconds_left": left, "row": row}


def cooldown_lift(*, player: Player, now: datetime | None = None) -> dict[str, Any]:
    """End the player's running cool-down now; 409 ``no_cooldown`` when none runs. The length and the dates stay,
    so a repeat within 24 hours still doubles (lifting forgives this cool-down, not the quits). Returns what was
    lifted (``until``, ``seconds_left``), for the caller's audit entry. Inside the caller's transaction if any."""
    now = now or timezone.now()
    with transaction.atomic():
        row = Reputation.objects.select_for_update().filter(player=player).first()
        left = reputation.seconds_left(reputation.Cooldown(row.cooldown_until), now) if row is not None else 0
        if not left:
            raise Conflict("no_cooldown", f"{player.handle} is not in a cool-down.")
        lifted = {"until": row.cooldown_until.isoformat(), "seconds_left": left, "length_seconds": row.cooldown_seconds}
        Reputation.objects.filter(pk=row.pk).update(cooldown_until=now, lifted_at=now)
    return lifted
