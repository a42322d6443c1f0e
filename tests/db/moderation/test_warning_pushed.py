"""A warning reaches the player: after its commit the game servers that recorded the player's games get a signed
``player.warned`` event (issue 27 §4; docs/moderation.md, "Warnings reach the player"). Moderation announces
``PlayerWarned``; the back office, which may import matchmaking, pushes it (``backoffice/listeners.py``)."""

from __future__ import annotations

import pytest

from arena.models import Player
from matchmaking import push
from moderation.services import player_warn
from tests.db.matchmaking.receiver import receiver
from tests.db.moderation.panel_helpers import Arena, fresh_ip, make_moderator

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_warning_is_pushed_to_the_players_game_server_signed(embedded_mode, settings):
    settings.PUSH_ALLOW_PRIVATE_NETWORKS = True  # the receiver is on 127.0.0.1
    arena, elsewhere = Arena(), Arena()
    arena.game([("kim", fresh_ip()), ("olga", fresh_ip())])
    elsewhere.game([("olga", fresh_ip()), ("zed", fresh_ip())])  # kim never played here: not told
    with receiver() as box:
        answer = arena.client.put("/api/v1/callback/", {"url": box.url}, format="json")
        assert answer.status_code in (200, 201), answer.content
        secret = answer.json()["secret"]
        entry = player_warn(
            moderator=make_moderator("mod"),
            player=Player.objects.get(handle="kim"),
            note="Please stop stalling lost games.",
        )
        (got,) = box.wait_for(1)
    assert got.headers["Arena-Event"] == "player.warned" and got.json["type"] == "player.warned"
    data = got.json["data"]
    assert data["player"] == "kim" and data["message"] == "Please stop stalling lost games."
    assert data["warning"] == entry.pk and data["at"].endswith("Z")
    assert push.verify(secret, got.headers["X-Arena-Signature"], got.body)
