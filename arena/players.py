"""Players: created on first sight, banned and unbanned (moderators' audited actions call these; they own the
audit entry).

After the commit the change is announced (``PlayerStatusChanged``): the leaderboards drop or restore the player,
matchmaking cancels a banned player's waiting tickets. The core does not know who listens.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from arena.models import Player
from infra.announcements import PlayerStatusChanged, announce


def players_fetch_or_create(handles: Iterable[str]) -> dict[str, Player]:
    """Every player by handle, the unknown ones created: a player exists from the first time a game server names
    them (a recorded game, a ticket, a blocked list; docs/api.md). Safe against a concurrent creation."""
    wanted = set(handles)
    known = {p.handle: p for p in Player.objects.filter(handle__in=wanted)}
    if missing := sorted(wanted - known.keys()):
        Player.objects.bulk_create([Player(handle=h) for h in missing], ignore_conflicts=True)
        known.update({p.handle: p for p in Player.objects.filter(handle__in=missing)})
    return known


def player_status_ban(*, player: Player) -> None:
    """Bans the player: their games recorded from now on are rated for nobody, and every listener hears of it."""
    _set_status(player, Player.Status.BANNED)


def player_status_unban(*, player: Player) -> None:
    """Lifts the ban; after the commit the player is back on the boards where their ratings qualify."""
    _set_status(player, Player.Status.ACTIVE)


def _set_status(player: Player, status: str) -> None:
    with transaction.atomic():
        Player.objects.filter(pk=player.pk).update(status=status)
        player.status = status
        announce(PlayerStatusChanged(player_id=player.pk, status=status))
