"""Reading a game server's games back as they were recorded (docs/api.md, "Reading games back"): one game by id,
one by the server's own ``table_id``, or all of them since a time, cursor paginated, so a server can reconcile
its records with Arena's after an outage.

A game is shown as recorded: the answer of its POST (``arena.selectors.games_present``) plus ``variant``,
``finished_at`` (UTC, ``Z``), ``details`` and each player's result (score, place, quit; a team only in a game
played in teams, a place only where the game has places, and the game's own fields such as Tokaido's
``achievements``). Addresses and devices are never shown: only their keyed hashes were stored.

Selectors: a fixed number of queries per page (the games, their seats, and the caller's rating changes).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from arena.games import UnknownGame, get_game
from arena.models import Game, GameServer, Seat
from arena.selectors import games_present
from infra.api.cursors import integer_key, keyset_page
from infra.errors import InvalidInput

GAMES_LIMIT_DEFAULT = 50
GAMES_LIMIT_MAX = 100


def utc_z(moment: datetime) -> str:
    """A time as the API writes it: ISO 8601 in UTC with ``Z`` (docs/api.md)."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _players(game: Game, seats: Sequence[Seat]) -> list[dict[str, Any]]:
    try:
        cooperative = get_game(game.title).cooperative
    except UnknownGame:  # pragma: no cover - a stored game's title is always a game
        cooperative = False
    players = []
    for seat in seats:
        entry: dict[str, Any] = {"player": seat.player.handle, "score": seat.score}
        if not cooperative:
            entry["place"] = seat.place
        entry["quit"] = seat.quit
        if seat.team is not None:
            entry["team"] = seat.team
        entry.update(seat.fields or {})
        players.append(entry)
    return players


def games_recorded_present(games: Sequence[Game], changes: Mapping[int, Any] | None = None) -> list[dict[str, Any]]:
    """Each game as recorded, in the order given: the POST's answer and what was sent (less addresses)."""
    seats: dict[int, list[Seat]] = defaultdict(list)
    for seat in (
        Seat.objects.filter(game_id__in=[g.pk for g in games]).select_related("player").order_by("game_id", "position")
    ):
        seats[seat.game_id].append(seat)
    out = []
    for game, body in zip(games, games_present(games, changes=dict(changes or {})), strict=True):
        body.update(
            {
                "variant": game.variant,
                "finished_at": utc_z(game.finished_at),
                "players": _players(game, seats[game.pk]),
                "details": game.details or {},
            }
        )
        out.append(body)
    return out


def since_parse(raw: str) -> datetime:
    """``?since=``: ISO 8601 with a timezone (``Z`` or an offset), as ``finished_at`` is sent."""
    try:  # "+" arrives as " " when not encoded; RFC 3339 allows a lower-case "t" and "z"
        moment: datetime | None = parse_datetime(raw.replace(" ", "+").upper()) if len(raw) <= 40 else None
    except ValueError:  # well formed, no such time (a 61st second)
        moment = None
    if moment is None or moment.tzinfo is None:
        raise InvalidInput(
            "invalid_input",
            "since must be a time in ISO 8601 with a timezone.",
            {"since": "Must be ISO 8601 with a timezone, e.g. 2026-12-01T00:00:00Z."},
        )
    return moment


def games_page(
    *,
    server: GameServer,
    table_id: str | None = None,
    since: datetime | None = None,
    cursor: str | None = None,
    limit: int = GAMES_LIMIT_DEFAULT,
) -> tuple[list[Game], str | None]:
    """The server's games, oldest ``finished_at`` first (a server's own clock, which it reconciles by), from
    ``since`` on, after ``cursor``; ``table_id`` finds the one game of that id. Returns the page and the next
    cursor (None at the end)."""
    # finished_at is never null: the condition names the partial index game_server_finished (arena/models.py).
    rows = Game.objects.filter(server=server, finished_at__isnull=False)
    if table_id is not None:
        rows = rows.filter(table_id=table_id)
    if since is not None:
        rows = rows.filter(finished_at__gte=since)
    return keyset_page(rows, time_field="finished_at", cursor=cursor, limit=limit, newest_first=False, key=integer_key)
