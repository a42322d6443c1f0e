"""What the back office hears: a warning, pushed to the game servers as ``player.warned`` (issue 27 §4).

Moderation records a warning and announces ``PlayerWarned`` after its commit; it may not import matchmaking (they
are siblings), so this top-floor module, which may, sends the event through matchmaking's one door for other
apps' pushes (``matchmaking.events.event_push``: signed, retried, listed in the server's deliveries like a table).
The servers told are those that recorded a game of the player's (docs/moderation.md, "Warnings reach the player").
"""

from __future__ import annotations

from arena.models import Game
from infra.announcements import PlayerWarned, subscribe
from matchmaking.events import PLAYER_WARNED, event_push
from moderation.models import AuditEntry


def on_player_warned(fact: PlayerWarned) -> None:
    entry = AuditEntry.objects.filter(pk=fact.entry_id).prefetch_related("players").first()
    if entry is None:
        return
    player = next((p for p in entry.players.all() if p.pk == fact.player_id), None)
    if player is None:
        return
    servers = sorted(set(Game.objects.filter(seats__player_id=player.pk).values_list("server_id", flat=True)))
    data = {"player": player.handle, "message": entry.note, "warning": entry.pk, "at": entry.created_at}
    for server_id in servers:
        event_push(server_id, PLAYER_WARNED, data)


subscribe(PlayerWarned, on_player_warned)
