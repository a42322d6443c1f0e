"""Recording finished games: the game's rules decide places, then one transaction stores the table.

One code path serves a single POST and a batch: games are judged one by one (each fails alone), then every
accepted game of the call is written with bulk statements in one transaction, and the rating workers are
woken after commit. A concurrent insert of the same table (a game server retrying on timeout) is caught by
the (server, table_id) unique constraint and answered like any resend.
"""
from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection, transaction

from arena.errors import ArenaError, Conflict, InvalidInput
from arena.game_writer import GameRow, KnownPlayer, SeatRow, insert_games, players_fetch_or_create
from arena.games import UnknownGame, get_game
from arena.games.base import Entry, Ranking, Result, RuleViolation
from arena.models import Game, GameServer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlayerInput:
    player: str
    ip_hash: str
    device_hash: str | None
    score: int | None
    quit: bool
    team: str | None
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GameInput:
    table_id: str
    game: str
    variant: dict[str, Any]
    rated: bool
    finished_at: datetime
    players: tuple[PlayerInput, ...]
    details: dict[str, Any]
    fingerprint: str


@dataclass
class Recorded:
    """A stored game and whether this call created it (201) or found it already there (200)."""

    game: Game
    created: bool
    seating: tuple[tuple[str, int | None], ...] | None = None  # known when this call wrote the game


Outcome = Recorded | ArenaError | RuleViolation


@dataclass
class _Accepted:
    index: int
    data: GameInput
    ranking: Ranking


def _judge(data: GameInput) -> Ranking:
    try:
        rules = get_game(data.game)
    except UnknownGame:
        raise InvalidInput("unknown_game", f"Arena does not rate a game called {data.game!r}.",
                           {"game": "Unknown game."}) from None
    result = Result(
        variant=data.variant,
        rated=data.rated,
        entries=tuple(Entry(p.player, p.score, p.quit, p.team, p.fields) for p in data.players),
        details=data.details,
    )
    return rules.judge(result)


def _same_ip_warnings(data: GameInput) -> list[dict[str, Any]]:
    """One warning per address shared by two or more players: they have a right to know, nothing more."""
    by_ip: dict[str, list[str]] = defaultdict(list)
    for p in data.players:
        by_ip[p.ip_hash].append(p.player)
    return [{"code": "same_ip", "players": names} for names in by_ip.values() if len(names) > 1]


def _resend(stored: Game, data: GameInput) -> Outcome:
    if stored.fingerprint == data.fingerprint:
        return Recorded(stored, created=False)
    return Conflict(
        "table_conflict",
        f"Table {data.table_id!r} was already recorded with a different result.",
        {"table_id": "Already recorded with a different body."},
    )


def games_record(*, server: GameServer, games: Sequence[GameInput | ArenaError]) -> list[Outcome]:
    """Record each game (or its parse error) in order; a game's failure never affects the others."""
    outcomes: list[Outcome | None] = [None] * len(games)
    accepted: list[_Accepted] = []
    for index, data in enumerate(games):
        if isinstance(data, ArenaError):
            outcomes[index] = data
            continue
        try:
            accepted.append(_Accepted(index, data, _judge(data)))
        except (ArenaError, RuleViolation) as refusal:
            outcomes[index] = refusal

    # A batch looks its tables up first (one query for all). A single game skips that round trip and simply
    # tries the insert: a resend is rare, and the unique constraint tells it apart just as surely.
    stored: dict[str, Game] = {}
    if len(accepted) > 1:
        table_ids = [a.data.table_id for a in accepted]
        stored = {g.table_id: g for g in Game.objects.filter(server=server, table_id__in=table_ids)}
    fresh: list[_Accepted] = []
    first_in_call: dict[str, _Accepted] = {}
    repeats: list[_Accepted] = []
    for item in accepted:
        table_id = item.data.table_id
        if table_id in stored:
            outcomes[item.index] = _resend(stored[table_id], item.data)
        elif table_id in first_in_call:
            repeats.append(item)
        else:
            first_in_call[table_id] = item
            fresh.append(item)

    if fresh:
        try:
            created = _insert(server, fresh)
        except IntegrityError:
            # One of these tables is stored already (a resend, or another request just now): redo them one by
            # one to tell which.
            created = {}
            for item in fresh:
                try:
                    if len(fresh) == 1:
                        raise
                    created.update(_insert(server, [item]))
                except IntegrityError:
                    winner = Game.objects.get(server=server, table_id=item.data.table_id)
                    outcomes[item.index] = _resend(winner, item.data)
        for item in fresh:
            if item.index in created:
                places = item.ranking.places
                seating = tuple((p.player, places.get(p.player)) for p in item.data.players)
                outcomes[item.index] = Recorded(created[item.index], created=True, seating=seating)
    for item in repeats:
        first = outcomes[first_in_call[item.data.table_id].index]
        outcomes[item.index] = _resend(first.game, item.data) if isinstance(first, Recorded) else first
    return outcomes  # type: ignore[return-value]


def game_record(*, server: GameServer, data: GameInput) -> Recorded:
    """Record one game; raises its refusal."""
    (outcome,) = games_record(server=server, games=[data])
    if isinstance(outcome, Recorded):
        return outcome
    raise outcome


def _status(data: GameInput, ranking: Ranking, players: dict[str, KnownPlayer]) -> str:
    if not data.rated or not ranking.ratable:
        return Game.Status.UNRATED
    if any(players[p.player].banned for p in data.players):
        # A banned player's new games are recorded but rated for nobody (moderation.md).
        return Game.Status.UNRATED
    return Game.Status.PENDING


def _lock_tables(server: GameServer, items: list[_Accepted]) -> None:
    """On PostgreSQL, serialise requests that carry the same tables, taking the locks in one sorted order.

    Two batches holding the same tables in different orders would otherwise each wait on the other's
    uncommitted unique-index entry: a deadlock instead of a clean "already recorded". One table alone cannot
    deadlock that way, so a single game skips the round trip.
    """
    if connection.vendor != "postgresql" or len(items) < 2:
        return  # SQLite transactions are IMMEDIATE: writers are already one at a time
    keys = sorted(f"{server.pk}:{item.data.table_id}" for item in items)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_advisory_xact_lock(k)) FROM "
            "(SELECT hashtextextended(t, 0) AS k FROM unnest(%s::text[]) AS t ORDER BY 1) AS keys",
            [keys],
        )


def _insert(server: GameServer, items: list[_Accepted]) -> dict[int, Game]:
    with transaction.atomic():
        _lock_tables(server, items)
        players = players_fetch_or_create({p.player for item in items for p in item.data.players})
        rows = [
            GameRow(
                table_id=item.data.table_id, title=item.data.game, variant=item.ranking.variant,
                rated=item.data.rated, finished_at=item.data.finished_at, details=item.data.details,
                status=_status(item.data, item.ranking, players), rec=item.ranking.rec,
                coop_score=item.ranking.coop_score, warnings=_same_ip_warnings(item.data),
                fingerprint=item.data.fingerprint,
            )
            for item in items
        ]
        seats = []
        for item in items:
            side_of = {name: i for i, side in enumerate(item.ranking.sides) for name in side.players}
            places = item.ranking.places
            seats.append([
                SeatRow(
                    player_id=players[p.player].id, position=position, score=p.score, quit=p.quit, team=p.team,
                    side=side_of[p.player], place=places.get(p.player), fields=p.fields, ip_hash=p.ip_hash,
                    device_hash=p.device_hash,
                )
                for position, p in enumerate(item.data.players)
            ])
        ids = insert_games(server.pk, rows, seats)
        titles = {row.title for row in rows if row.status == Game.Status.PENDING}
        if titles:
            transaction.on_commit(lambda: _wake_raters(titles))
    return {
        item.index: Game(
            pk=game_id, server=server, table_id=row.table_id, title=row.title, variant=row.variant,
            rated=row.rated, finished_at=row.finished_at, details=row.details, status=row.status, rec=row.rec,
            coop_score=row.coop_score, warnings=row.warnings, same_ip=bool(row.warnings),
            fingerprint=row.fingerprint,
        )
        for item, row, game_id in zip(items, rows, ids, strict=True)
    }


def _wake_raters(titles: set[str]) -> None:
    """Wake the rating stage of each title; a lost message is caught by the periodic sweep."""
    from ratings.tasks import request_rating

    try:
        request_rating(titles)
    except Exception:  # broker down: the games are safely stored as pending and the sweep will rate them
        log.exception("could not queue rating for %s", sorted(titles))
