"""Building ratings straight in the database: the boards read Rating rows, the rating worker is not needed."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from django.utils import timezone

from arena.models import Player
from leaderboards.board import MIN_GAMES, is_eligible
from ratings.models import Rating


def rate(
    handle: str,
    elo: float,
    *,
    title: str = "wizard",
    games: int = 5,
    days_ago: float | None = 1.0,
    status: str = Player.Status.ACTIVE,
) -> Rating:
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


# Last games around the cutoff, down to the microsecond on either side of it, and none at all.
NEAR_CUTOFF = (
    None,
    -timedelta(days=3),
    -timedelta(seconds=1),
    -timedelta(microseconds=1),
    timedelta(0),
    timedelta(microseconds=1),
    timedelta(seconds=1),
    timedelta(days=3),
)


def random_ratings(rnd: random.Random, *, count: int, cutoff: datetime, title: str = "wizard") -> list[Rating]:
    """``count`` players with games around MIN_GAMES, last games around ``cutoff``, a few of them banned."""
    players = Player.objects.bulk_create(
        [
            Player(handle=f"p{i}", status=Player.Status.BANNED if rnd.random() < 0.2 else Player.Status.ACTIVE)
            for i in range(count)
        ]
    )
    ratings = []
    for player in players:
        offset = rnd.choice(NEAR_CUTOFF)
        ratings.append(
            Rating(
                player=player,
                title=title,
                elo=rnd.choice([1400.0, 1500.0, 1612.5]),
                games=rnd.randint(MIN_GAMES - 2, MIN_GAMES + 2),
                last_game_at=None if offset is None else cutoff + offset,
            )
        )
    return Rating.objects.bulk_create(ratings)


def expected_ids(ratings: list[Rating], cutoff: datetime) -> set[int]:
    banned = set(Player.objects.filter(status=Player.Status.BANNED).values_list("pk", flat=True))
    return {
        r.player_id
        for r in ratings
        if is_eligible(games=r.games, last_game_at=r.last_game_at, banned=r.player_id in banned, cutoff=cutoff)
    }
