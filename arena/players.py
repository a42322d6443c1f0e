"""Player state changes: ban and unban. Moderators' audited actions call these; they own the audit entry.

After the commit the change is announced (``PlayerStatusChanged``): the leaderboards drop or restore the player,
matchmaking cancels a banned player's waiting tickets. The core does not know who listens.
"""
from __future__ import annotations

from django.db import transaction

from arena.announcements import PlayerStatusChanged, announce
from arena.models import Player


def player_ban(*, player: Player) -> None:
    """Bans the player: their games recorded from now on are rated for nobody, and every listener hears of it."""
    _set_status(player, Player.Status.BANNED)


def player_unban(*, player: Player) -> None:
    """Lifts the ban; after the commit the player is back on the boards where their ratings qualify."""
    _set_status(player, Player.Status.ACTIVE)


def _set_status(player: Player, status: Player.Status) -> None:
    with transaction.atomic():
        Player.objects.filter(pk=player.pk).update(status=status)
        player.status = status
        announce(PlayerStatusChanged(player_id=player.pk, status=status))
