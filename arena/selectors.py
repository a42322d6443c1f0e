"""Reads of the core domain, shaped for the API; a fixed number of queries however many games are asked for."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from arena.errors import NotFound
from arena.models import Game, GameServer, Seat

# (handle, place) per seat in reported order: what a game's page shows of its players.
Seating = Sequence[tuple[str, int | None]]


def game_get_for_server(*, server: GameServer, game_id: int) -> Game:
    """A game server sees only its own games; another server's game is as unknown as a missing one."""
    game = Game.objects.filter(pk=game_id, server=server).first()
    if game is None:
        raise NotFound("game_not_found", f"No game {game_id} recorded by this game server.")
    return game


def _seatings(game_ids: list[int]) -> dict[int, list[tuple[str, int | None]]]:
    seatings: dict[int, list[tuple[str, int | None]]] = defaultdict(list)
    rows = Seat.objects.filter(game_id__in=game_ids).order_by("game_id", "position")
    for game_id, handle, place in rows.values_list("game_id", "player__handle", "place"):
        seatings[game_id].append((handle, place))
    return seatings


# game id -> player handle -> {"player", "before", "after", "delta"}: what the ratings app says a game changed.
RatingChanges = Mapping[int, Mapping[str, Mapping[str, Any]]]


def games_present(games: Sequence[Game], known: Mapping[int, Seating] | None = None,
                  changes: RatingChanges | None = None) -> list[dict[str, Any]]:
    """The API view of each game (docs/api.md), in the order given.

    ``known`` carries the seating of games the caller has just written, which saves reading them back;
    ``changes`` the rating changes of the rated ones, which the ratings app reads (the core cannot: it sits below).
    """
    known = known or {}
    changes = changes or {}
    seatings = dict(known)
    missing = [g.pk for g in games if g.pk not in seatings]
    if missing:
        seatings.update(_seatings(missing))
    out = []
    for g in games:
        seating = seatings.get(g.pk, ())
        by_player = changes.get(g.pk, {})
        out.append({
            "id": g.pk,
            "table_id": g.table_id,
            "game": g.title,
            "rated": g.rated,
            "status": g.status,
            "places": {handle: place for handle, place in seating if place is not None},
            "warnings": g.warnings,
            "rating_changes": [by_player[handle] for handle, _ in seating if handle in by_player],
        })
    return out
