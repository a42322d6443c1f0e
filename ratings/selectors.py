"""Reads of ratings, shaped for the public API (docs/api.md, Players); each a fixed number of queries.

Ratings are stored unrounded; these reads round to 2 decimals, as the API shows them (docs/ratings.md). The level is
worked out from the unrounded rating, as docs/ratings.md defines it (``floor(rating - R0)``).

The stages' lag (``rating_lag``, kept with the gauges' reading in ``ratings.lag``) is read through here by the
apps above: the moderators' dashboard shows it.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from django.utils import timezone

from arena.games import GAMES
from arena.models import Game, Player, Seat
from arena.selectors import player_get, player_handle_check, player_not_found
from infra.errors import Conflict, NotFound
from ratings import elo, explain, hanabi, ledger, reputation, settled
from ratings.config import elo_config
from ratings.lag import rating_lag as rating_lag
from ratings.models import RatingChange


def _round2(value: float) -> float:
    return round(value, 2)


def player_get_by_handle(*, handle: str) -> Player:
    """The player with this site id (exact match); raises NotFound ``player_not_found``. One query."""
    return player_get(handle=handle)


def player_profile(*, handle: str) -> dict[str, Any]:
    """``{"player", "id", "status", "ratings": {game: {"elo", "level", "games"}}}``; 404 ``player_not_found``.

    One query for the player and all their ratings (a LEFT JOIN: a player without ratings still has a page). The
    ranks are the leaderboards' to add (they sit above ratings): see ``doors.players``.
    """
    player_handle_check(handle)
    rows = list(
        Player.objects.filter(handle=handle)
        .order_by("ratings__title")
        .values_list(
            "pk",
            "status",
            "ratings__title",
            "ratings__elo",
            "ratings__games",
            "reputation__recent",
            "reputation__cooldown_until",
            "ratings__last_game_at",
        )
    )
    if not rows:
        raise player_not_found(handle)
    player_id, status = rows[0][0], rows[0][1]
    ratings: dict[str, dict[str, Any]] = {}
    config = elo_config()
    now = timezone.now()
    for _, _, title, rating, games, _, _, last_game_at in rows:
        if title is None:
            continue
        ratings[title] = {
            "elo": _round2(rating),
            "level": elo.level(rating, initial=config.initial),
            "games": games,
            # docs/ratings.md, "How settled is a rating": worked out here at read time, nothing written.
            **settled.present(settled.elo_settledness(games, settled.days_away(last_game_at, now), config)),
            "last_game_at": last_game_at,  # for the door's not_ranked; not shown as such
        }
    return {
        "player": handle,
        "id": player_id,
        "status": status,
        "ratings": ratings,
        "reputation": reputation_present(rows[0][5] or ""),
        "cooldown": cooldown_present(rows[0][6]),
    }


def reputation_present(recent: str) -> dict[str, Any]:
    """docs/matchmaking.md, "Reputation": the percentage (null under 10 games), with the games and quits counted."""
    found = reputation.reputation(recent)
    return {
        "percent": None if found.percent is None else round(found.percent, 2),
        "games": found.games,
        "quits": found.quits,
    }


def cooldown_present(until: datetime | None, now: datetime | None = None) -> dict[str, Any] | None:
    """A running cool-down: its end and the seconds left (``retry_after`` of a refused ticket); None otherwise."""
    left = reputation.seconds_left(reputation.Cooldown(until=until), now or timezone.now())
    return {"until": until, "retry_after": left} if left else None


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
            "seq", "game_id", "finished_at", "before", "after", "delta", "place", "kind", "games_before"
        )[: limit + 1]
    )
    more = len(rows) > limit
    rows = rows[:limit]
    game = GAMES.get(title)
    # Cooperative games (Hanabi) have no places: the team wins or loses together.
    placed = game is None or not game.cooperative
    config = elo_config()
    entries = [
        {
            "game_id": game_id,
            "finished_at": finished_at,
            "before": _round2(before_),
            "after": _round2(after),
            "delta": _round2(delta),
            "place": place if placed else None,
            "kind": kind,
            # How settled the rating was right after this change (docs/ratings.md, "How settled is a rating"):
            # a game counts one more game played; a reset keeps the games.
            **settled.present(settled.elo_settledness(games_before + (kind == RatingChange.Kind.GAME), 0, config)),
        }
        for _seq, game_id, finished_at, before_, after, delta, place, kind, games_before in rows
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
                "player": handle,
                "before": round(before, 2),
                "after": round(after, 2),
                "delta": round(delta, 2),
            }
    return changes


# ---- Explanations (docs/ratings.md, "Reading an explanation") -------------------------------------------------


def game_explanations(*, game_ids: list[int]) -> dict[int, dict[str, Any]]:
    """game id -> its explanation, from the stored history rows and the rules (``ratings.explain``): four queries
    whatever the number of games (games, seats, history rows, earlier resets). A game that is not rated maps to
    ``{"game", "title", "status"}`` alone; an unknown id is left out.
    """
    games = {
        row[0]: row
        for row in Game.objects.filter(pk__in=game_ids).values_list(
            "pk", "title", "status", "recommended_sides", "coop_score", "variant", "rating_seq"
        )
    }
    rated = [pk for pk, row in games.items() if row[2] == Game.Status.RATED]
    seats: dict[int, list[tuple]] = defaultdict(list)
    for row in (
        Seat.objects.filter(game_id__in=rated)
        .order_by("game_id", "position")
        .values_list("game_id", "player_id", "player__handle", "side", "place", "quit")
    ):
        seats[row[0]].append(row)
    changes = {
        (row[0], row[1]): row
        for row in RatingChange.objects.filter(game_id__in=rated, kind=RatingChange.Kind.GAME).values_list(
            "game_id", "player_id", "before", "delta", "k", "games_before", "opponent"
        )
    }
    resets = _resets_before(games, rated, seats)
    config = elo_config()
    out: dict[int, dict[str, Any]] = {}
    for pk, (_, title, status, rec, coop_score, variant, _seq) in games.items():
        head = {"game": pk, "title": title, "status": status}
        if pk not in rated:
            out[pk] = head
            continue
        stored = [
            explain.StoredSeat(
                player=handle,
                side=side,
                place=place,
                quit=quit_,
                before=changes[(pk, player_id)][2],
                delta=changes[(pk, player_id)][3],
                k=changes[(pk, player_id)][4],
                games_before=changes[(pk, player_id)][5],
                reset_before=player_id in resets.get(pk, ()),
            )
            for _, player_id, handle, side, place, quit_ in seats[pk]
        ]
        if rec is None:  # cooperative: the team against Hanabot, the bot it met stored with every row
            bot = changes[(pk, seats[pk][0][1])][6]
            explanation = explain.explain_hanabi(
                stored, deck=variant[hanabi.DECK_VARIANT], rating_score=coop_score, bot=bot, config=config
            )
        else:
            explanation = explain.explain_competitive(stored, rec, config)
        out[pk] = {**head, **explanation_present(explanation)}
    return out


def _resets_before(games: dict[int, tuple], rated: list[int], seats: dict[int, list[tuple]]) -> dict[int, set[int]]:
    """game id -> the players of that game a moderator had reset in its title before it: one query."""
    players = {row[1] for pk in rated for row in seats[pk]}
    titles = {games[pk][1] for pk in rated}
    if not players:
        return {}
    resets: dict[tuple[int, str], list[int]] = defaultdict(list)
    for player_id, title, seq in RatingChange.objects.filter(
        kind=RatingChange.Kind.RESET, player_id__in=players, title__in=titles
    ).values_list("player_id", "title", "seq"):
        resets[(player_id, title)].append(seq)
    out: dict[int, set[int]] = {}
    for pk in rated:
        title, seq = games[pk][1], games[pk][6]
        out[pk] = {row[1] for row in seats[pk] if any(s < seq for s in resets.get((row[1], title), ()))}
    return out


def explanation_present(explanation: explain.Explanation) -> dict[str, Any]:
    """The API's shape of an explanation (docs/api.md): numbers unrounded, so the sum checks to the last digit."""
    body: dict[str, Any] = {
        "sides": explanation.sides,
        "recommended_sides": explanation.recommended_sides,
        "multiplier": explanation.multiplier,
        "rules": list(explanation.rules),
        "seats": [seat_present(seat, cooperative=explanation.hanabot is not None) for seat in explanation.seats],
    }
    if explanation.hanabot is not None:
        row = explanation.hanabot
        body["team_rating"] = explanation.team_rating
        body["hanabot"] = {
            "variant": row.deck,
            "variant_class": row.variant_class,
            "team_size": row.team_size,
            "score": row.score,
            "threshold": row.threshold,
            "max_score": row.max_score,
            "rule": row.rule,
            "rating": row.rating,
            "perfect_score_rule": row.perfect_score_rule,
        }
    return body


def seat_present(seat: explain.SeatExplanation, *, cooperative: bool = False) -> dict[str, Any]:
    """A seat's explanation; ``sources`` names each part's ledger source (docs/ratings.md, "Where rating points
    come from"): the parts add up to ``delta``."""
    return {
        "player": seat.player,
        "before": seat.before,
        "k": seat.k,
        "k_reason": seat.k_reason,
        "games_before": seat.games_before,
        "place": seat.place,
        "quit": seat.quit,
        "side_rating": seat.side_rating,
        "team": list(seat.team),
        "terms": [
            {
                "against": t.against,
                "against_players": list(t.against_players),
                "rating": t.rating,
                "expected": t.expected,
                "score": t.score,
                "term": t.term,
            }
            for t in seat.terms
        ],
        "quit_penalty": seat.quit_penalty,
        "floor": seat.floor,
        "delta": seat.delta,
        "terms_sum": seat.terms_sum,
        # The same change as the game, the history and the player page show it (2 decimals; docs/ratings.md,
        # "Two precisions"): the unrounded numbers above add up, these are for display.
        "shown": {"before": round(seat.before, 2), "delta": round(seat.delta, 2)},
        "rules": list(seat.rules),
        "sources": ledger.game_parts(
            delta=seat.delta, unfloored=seat.delta - seat.floor, penalty=-seat.quit_penalty, cooperative=cooperative
        ),
    }


def game_explanation(*, game_id: int) -> dict[str, Any]:
    """One game's explanation; 404 ``game_not_found``, 409 ``not_rated_yet`` (pending) or ``not_rated`` (recorded
    without rating). A void game is answered as ``{"game", "title", "status": "void"}``: its void is the doors'
    to add (moderation sits above ratings)."""
    found = game_explanations(game_ids=[game_id]).get(game_id)
    if found is None:
        raise NotFound("game_not_found", f"No game {game_id}.")
    status = found["status"]
    if status == Game.Status.PENDING:
        raise Conflict(
            "not_rated_yet",
            f"Game {game_id} is waiting for the rating workers; ask again shortly.",
            extra={"status": status},
        )
    if status == Game.Status.UNRATED:
        raise Conflict(
            "not_rated",
            f"Game {game_id} was recorded without rating (rated: false, a single player "
            "or a banned player at the table): it changed no rating.",
            extra={"status": status},
        )
    return found
