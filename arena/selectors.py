"""Reads of the core domain, shaped for the API; a fixed number of queries however many games are asked for."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from arena.errors import NotFound
from arena.models import Game, GameServer, Seat


def game_get_for_server(*, server: GameServer, game_id: int) -> Game:
    """A game server sees only its own games; another server's game is as unknown as a missing one."""
    game = Game.objects.filter(pk=game_id, server=server).first()
    if game is None:
        raise NotFound("game_not_found", f"No game {game_id} recorded by this game server.")
    return game


def _round2(value: float) -> float:
    return round(value, 2)


def games_present(games: list[Game]) -> list[dict[str, Any]]:
    """The API view of each game (api.md), in the order given."""
    from ratings.models import RatingChange

    ids = [g.pk for g in games]
    places: dict[int, dict[str, int]] = defaultdict(dict)
    order: dict[int, dict[int, str]] = defaultdict(dict)
    for game_id, handle, place, player_id in Seat.objects.filter(game_id__in=ids).order_by(
        "game_id", "position"
    ).values_list("game_id", "player__handle", "place", "player_id"):
        order[game_id][player_id] = handle
        if place is not None:
            places[game_id][handle] = place
    changes: dict[int, list[dict[str, Any]]] = defaultdict(list)
    rated_ids = [g.pk for g in games if g.status == Game.Status.RATED]
    if rated_ids:
        for game_id, player_id, before, after, delta in RatingChange.objects.filter(
            game_id__in=rated_ids, kind=RatingChange.Kind.GAME
        ).values_list("game_id", "player_id", "before", "after", "delta"):
            changes[game_id].append({
                "player": order[game_id][player_id], "before": _round2(before), "after": _round2(after),
                "delta": _round2(delta),
            })
    out = []
    for g in games:
        seat_order = {handle: i for i, handle in enumerate(order[g.pk].values())}
        out.append({
            "id": g.pk,
            "table_id": g.table_id,
            "game": g.title,
            "rated": g.rated,
            "status": g.status,
            "places": places[g.pk],
            "warnings": g.warnings,
            "rating_changes": sorted(changes[g.pk], key=lambda c: seat_order[c["player"]]),
        })
    return out
