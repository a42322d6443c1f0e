"""Player state changes: ban and unban. Moderators' audited actions call these; they own the audit entry."""
from __future__ import annotations

from django.db import transaction

from arena.models import Player


def player_ban(*, player: Player) -> None:
    """Bans the player; after the commit they leave every leaderboard at once (the database board filters them)."""
    _set_status(player, Player.Status.BANNED)


def player_unban(*, player: Player) -> None:
    """Lifts the ban; after the commit the player is back on the boards where their ratings qualify."""
    _set_status(player, Player.Status.ACTIVE)


def _set_status(player: Player, status: Player.Status) -> None:
    with transaction.atomic():
        Player.objects.filter(pk=player.pk).update(status=status)
        player.status = status
        transaction.on_commit(lambda: _resync_boards(player.pk))


def _resync_boards(player_id: int) -> None:
    # Lazy: the core domain does not import the leaderboards at load time (they import it).
    from leaderboards.services import board_sync, board_titles
    from ratings.models import Rating

    titles = set(Rating.objects.filter(player_id=player_id).values_list("title", flat=True))
    for title in sorted(titles & set(board_titles())):
        board_sync(title=title, player_ids=[player_id])
