"""Builders for the panel's tests: games posted through the real API (recording, rating and detection run as in
production, in-process), a ring of accounts, a moderator from the migration's group.

Used by tests/db/moderation/test_admin_*.py and tests/browser/moderation/.
"""

from __future__ import annotations

import itertools
from typing import Any

from django.apps import apps as django_apps
from django.contrib.auth.models import Group, User
from rest_framework.test import APIClient

from arena.models import Game, Player
from arena.servers import game_server_create
from moderation.moderators import GROUP, sync_moderators_group

PASSWORD = "correct horse battery staple"
_tables = itertools.count(1)
_addresses = itertools.count(1)


def fresh_ip() -> str:
    """An address nobody else uses (an IPv6 /64 of its own): no same-IP link by chance."""
    return f"2001:db8:{next(_addresses) % 65536:x}::1"


def moderators_group() -> Group:
    """The group exactly as the migration makes it (a transactional test's flush empties auth tables)."""
    sync_moderators_group(django_apps)
    return Group.objects.get(name=GROUP)


def make_moderator(username: str = "mod") -> User:
    user = User.objects.create_user(username, f"{username}@example.com", PASSWORD, is_staff=True)
    user.groups.add(moderators_group())
    return user


class Arena:
    """A game server's API client posting Tokaido (or Railroad Ink) games: places by score, best first."""

    def __init__(self) -> None:
        issued = game_server_create(name=f"panel-server-{next(_tables)}")
        self.server = issued.server
        self.client = APIClient()
        self.client.credentials(HTTP_AUTHORIZATION=f"Api-Key {issued.key}")

    def game(
        self, ranking: list[tuple[str, str]], *, device: dict[str, str] | None = None, title: str = "tokaido"
    ) -> dict[str, Any]:
        """``ranking``: (player, ip) best first; scores 60, 50, 40... so the order is the places."""
        players = []
        for i, (handle, ip) in enumerate(ranking):
            entry: dict[str, Any] = {"player": handle, "ip": ip, "score": 60 - 10 * i}
            if title == "tokaido":
                entry["achievements"] = 0  # its tie-break field, required
            elif title == "railroad_ink":
                entry["errors"] = 0
            if device and handle in device:
                entry["device"] = device[handle]
            players.append(entry)
        body = {"table_id": f"P-{next(_tables)}", "game": title, "players": players}
        response = self.client.post("/api/v1/games/", body, format="json")
        assert response.status_code == 201, response.content
        return response.json()

    def report(self, **body: Any) -> dict[str, Any]:
        response = self.client.post("/api/v1/reports/", body, format="json")
        assert response.status_code in (200, 201), response.content
        return response.json()


def build_ring(
    arena: Arena, *, main: str = "kim", alts: tuple[str, ...] = ("kim_alt",), games: int = 6, ip: str = "203.0.113.7"
) -> None:
    """A main and its alts on one address, the alts playing nobody but the main and losing every game."""
    for alt in alts:
        for _ in range(games):
            arena.game([(main, ip), (alt, ip)])


def player(handle: str) -> Player:
    return Player.objects.get(handle=handle)


def games_of(handle: str) -> list[Game]:
    return list(Game.objects.filter(seats__player__handle=handle).order_by("pk"))


def settle() -> None:
    """What the workers would do after the commits: rate every pending game, then run a detection pass.

    In a test wrapped in a transaction, on-commit work never fires; the browser tests (transactional, live
    server) get it from the real eager path and need not call this.
    """
    from moderation.detection import detection_run
    from ratings.elo_batch import elo_stage_run, titles_pending

    for title in titles_pending():
        elo_stage_run(title=title)
    detection_run()
