"""Reads of ratings, shaped for the public API (docs/api.md, Players); each a fixed number of queries.

Ratings are stored unrounded; these reads round to 2 decimals, as the API shows them (docs/ratings.md). The level is
worked out from the unrounded rating, as docs/ratings.md defines it (``floor(rating - R0)``).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from arena.errors import NotFound
from arena.games import GAMES
from arena.models import Player, is_player_id
from ratings import elo
from ratings.config import elo_config
from ratings.models import RatingChange


def _round2(value: float) -> float:
    return round(value, 2)


def player_get_by_handle(*, handle: str) -> Player:
    """The player with this site id (exact match); raises NotFound ``player_not_found``. One query."""
    player = Player.objects.filter(handle=handle).first() if is_player_id(handle) else None
    if player is None:
        raise NotFound("player_not_found", f"No player {handle!r}.")
    return player


def player_page(*, handle: str) -> dict[str, Any]:
    """``{"player", "id", "status", "ratings": {game: {"elo", "level", "games"}}}``; 404 ``player_not_found``.

    One query for the player and all their ratings (a LEFT JOIN: a player without ratings still has a page). The
    ranks are the leaderboards' to add (they sit above ratings): see ``ratings.api.players``.
    """
    if not is_player_id(handle):  # e.g. a NUL byte in the URL: no such player, and nothing for SQL to choke on
        raise NotFound("player_not_found", f"No player {handle!r}.")
    rows = list(
        Player.objects.filter(handle=handle)
        .order_by("ratings__title")
        .values_list("pk", "status", "ratings__title", "ratings__elo", "ratings__games", "ratings__last_game_at")
    )
    if not rows:
        raise NotFound("player_not_found", f"No player {handle!r}.")
    player_id, status = rows[0][0], rows[0][1]
    ratings: dict[str, dict[str, Any]] = {}
    initial = elo_config().initial
    for _, _, title, rating, games, last_game_at in rows:
        if title is None:
            continue
        ratings[title] = {
            "elo": _round2(rating),
            "level": elo.level(rating, initial=initial),
            "games": games,
            "last_game_at": last_game_at,  # for the door's not_ranked; not shown as such
        }
    return {"player": handle, "id": player_id, "status": status, "ratings": ratings}


def rating_history(*, player: Player, title: str, limit: int, before: int | None = None) -> dict[str, Any]:
    """One page of the player's history in ``title``, newest first: ``{"entries": [...], "next": cursor}``.

    Keyset pagination on ``seq`` (the order of application, one per change of a player in a title), which the
    ``change_history`` index (player, title, -seq) serves directly: ``before`` keeps entries with a smaller seq,
    and ``next`` is the seq of the page's last entry when older entries exist, else None. One query.
    """
    changes = RatingChange.objects.filter(player=player, title=title)
    if before is not None:
        changes = changes.filter(seq__lt=before)
    rows = list(
        changes.order_by("-seq").values_list(
            "seq", "game_id", "finished_at", "before", "after", "delta", "place", "kind"
        )[: limit + 1]
    )
    more = len(rows) > limit
    rows = rows[:limit]
    game = GAMES.get(title)
    # Cooperative games (Hanabi) have no places: the team wins or loses together.
    placed = game is None or not game.cooperative
    entries = [
        {
            "game_id": game_id,
            "finished_at": finished_at,
            "before": _round2(before_),
            "after": _round2(after),
            "delta": _round2(delta),
            "place": place if placed else None,
            "kind": kind,
        }
        for _seq, game_id, finished_at, before_, after, delta, place, kind in rows
    ]
    return {"entries": entries, "next": rows[-1][0] if more else None}


def rating_changes_by_game(*, game_ids: list[int]) -> dict[int, dict[str, dict[str, Any]]]:
    """game id -> handle -> the change the game made to that player's Elo, rounded as the API shows it."""
    changes: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
    if game_ids:
        rows = RatingChange.objects.filter(game_id__in=game_ids, kind=RatingChange.Kind.GAME)
        for game_id, handle, before, after, delta in rows.values_list(
            "game_id", "player__handle", "before", "after", "delta"
        ):
            changes[game_id][handle] = {
                "player": handle, "before": round(before, 2), "after": round(after, 2), "delta": round(delta, 2),
            }
    return changes
