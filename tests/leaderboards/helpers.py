"""Building ratings straight in the database: the boards read Rating rows, the rating worker is not needed."""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from arena.models import Player
from ratings.models import Rating


def rate(handle: str, elo: float, *, title: str = "wizard", games: int = 5, days_ago: float | None = 1.0,
         status: str = Player.Status.ACTIVE) -> Rating:
    """A rating of ``handle`` in ``title`` (the player created on first use); eligible by default."""
    player, _ = Player.objects.get_or_create(handle=handle, defaults={"status": status})
    last = None if days_ago is None else timezone.now() - timedelta(days=days_ago)
    return Rating.objects.create(player=player, title=title, elo=elo, games=games, last_game_at=last)


def board(client, game: str = "wizard", **params):
    return client.get(f"/api/v1/leaderboards/{game}/", params)


def names(response) -> list[str]:
    return [e["player"] for e in response.json()["entries"]]


def ranks(response) -> list[int]:
    return [e["rank"] for e in response.json()["entries"]]
