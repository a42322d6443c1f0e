"""What matchmaking hears from the core (``infra/announcements.py``), subscribed once by ``MatchmakingConfig.ready``.

Every app keeps its listeners in its ``listeners.py`` (docs/architecture.md#announcements-and-hand-offs): the
facts it follows are read in one place, and each listener is a thin door into the app's services.
"""

from __future__ import annotations

from arena.models import Player
from infra.announcements import PlayerStatusChanged, ServerRevoked, subscribe
from matchmaking import services


def on_player_status_changed(fact: PlayerStatusChanged) -> None:
    """After the ban's commit: a banned player leaves every queue at once."""
    if fact.status == Player.Status.BANNED:
        services.tickets_cancel_for_player(player=Player(pk=fact.player_id))


def on_server_revoked(fact: ServerRevoked) -> None:
    """Inside the revoking transaction (``announce_within``): the server's tickets and pushes end with its key."""
    services.tickets_cancel_for_server(server_id=fact.server_id)


subscribe(PlayerStatusChanged, on_player_status_changed)
subscribe(ServerRevoked, on_server_revoked)
