"""Builders for the player-read tests: players, ratings and history rows written directly (no rating batch)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from arena.models import Game, GameServer, Player
from ratings.models import Rating, RatingChange

_ids = itertools.count(1)
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def make_server() -> GameServer:
    n = next(_ids)
    return GameServer.objects.create(name=f"players-server-{n}", key_prefix="test", key_hash=f"players-{n}")


def make_player(handle: str, status: str = Player.Status.ACTIVE) -> Player:
    return Player.objects.create(handle=handle, status=status)


def make_rating(player: Player, title: str, elo: float, games: int = 1) -> Rating:
    return Rating.objects.create(player=player, title=title, elo=elo, games=games)


def make_game(server: GameServer, title: str, finished_at: datetime) -> Game:
    return Game.objects.create(
        server=server,
        table_id=f"T-{next(_ids)}",
        title=title,
        rated=True,
        finished_at=finished_at,
        status=Game.Status.RATED,
        fingerprint="x",
    )


def make_change(
    player: Player,
    title: str,
    seq: int,
    before: float,
    after: float,
    *,
    game: Game | None = None,
    kind: str = RatingChange.Kind.GAME,
    place: int | None = None,
    finished_at: datetime | None = None,
    games_before: int = 0,
    **extra: Any,
) -> RatingChange:
    return RatingChange.objects.create(
        player=player,
        title=title,
        seq=seq,
        game=game,
        kind=kind,
        before=before,
        after=after,
        delta=after - before,
        k=None if kind == RatingChange.Kind.RESET else 60,
        games_before=games_before,
        place=place,
        finished_at=finished_at or (game.finished_at if game else T0),
        **extra,
    )


def game_history(server: GameServer, player: Player, title: str, n: int, start: float = 1500.0) -> list[int]:
    """``n`` won games in a row for ``player`` (+10 each, seq 1..n, one hour apart); returns the game ids."""
    ids = []
    rating = start
    for seq in range(1, n + 1):
        game = make_game(server, title, T0 + timedelta(hours=seq))
        make_change(player, title, seq, rating, rating + 10, game=game, place=1, games_before=seq - 1)
        rating += 10
        ids.append(game.pk)
    return ids
