"""Reads of the core domain, shaped for the API; a fixed number of queries however many games are asked for."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from arena.models import Game, GameServer, Player, Seat, is_player_id
from infra import mode
from infra.errors import NotFound

# (handle, place) per seat in reported order: what a game's page shows of its players.
Seating = Sequence[tuple[str, int | None]]


def player_not_found(
    handle: str = "", *, missing: Mapping[str, str] | None = None, message: str | None = None
) -> NotFound:
    """The one 404 for a handle that names no player (docs/api.md ``player_not_found``), for every app.

    One handle (a URL's, a read's): "No player 'x'.". A body naming several players (a report's reporter and
    accused) passes ``missing``, field path -> handle, and gets one 404 naming each unknown one by its field."""
    fields = {path: f"No player {name!r}." for path, name in (missing or {}).items()}
    return NotFound("player_not_found", message or f"No player {handle!r}.", fields or None)


def player_handle_check(handle: str) -> None:
    """Refuses, without a query, a handle that cannot be a player id (e.g. a NUL byte in the URL: nothing for SQL
    to choke on). Reads that answer for players not seen yet (their defaults) need only this."""
    if not is_player_id(handle):
        raise player_not_found(handle)


def player_get(*, handle: str) -> Player:
    """The player with this site id (exact match); raises NotFound ``player_not_found``. One query at most."""
    player: Player | None = Player.objects.filter(handle=handle).first() if is_player_id(handle) else None
    if player is None:
        raise player_not_found(handle)
    return player


def game_get_for_server(*, server: GameServer, game_id: int) -> Game:
    """A game server sees only its own games; another server's game is as unknown as a missing one."""
    game: Game | None = Game.objects.filter(pk=game_id, server=server).first()
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


def games_as_committed(games: Sequence[Game]) -> list[Game]:
    """The games as their recording's answer shows them: in-process, the commit has already rated them (the tasks
    ran on it), so their current status rather than the one written; with workers, the written one as it is."""
    games = list(games)
    if mode.tasks_in_process():
        current = dict(Game.objects.filter(pk__in=[g.pk for g in games]).values_list("pk", "status"))
        for game in games:
            game.status = current[game.pk]
    return games


def games_present(
    games: Sequence[Game], known: Mapping[int, Seating] | None = None, changes: RatingChanges | None = None
) -> list[dict[str, Any]]:
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
        out.append(
            {
                "id": g.pk,
                "table_id": g.table_id,
                "game": g.title,
                "rated": g.rated,
                "status": g.status,
                "places": {handle: place for handle, place in seating if place is not None},
                "warnings": g.warnings,
                "rating_changes": [by_player[handle] for handle, _ in seating if handle in by_player],
            }
        )
    return out
