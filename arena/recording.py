"""Recording finished games: the game's rules decide places, then one transaction stores the table.

One code path serves a single POST and a batch: games are judged one by one (each fails alone), then every
accepted game of the call is written in one transaction (on PostgreSQL a single game is one statement), and
the rating workers are woken after commit. A table that is already stored, whether resent later or sent twice
at once by a game server retrying on timeout, is skipped by the (server, table_id) unique constraint and
answered like any resend: 200 when the body is the same, 409 when it differs.
"""
from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection, transaction

from arena.announcements import GamesRecorded, announce
from arena.db import postgres
from arena.errors import ArenaError, Conflict, InvalidInput
from arena.game_writer import GameRow, SeatRow, Written, games_write
from arena.games import UnknownGame, get_game
from arena.games.base import Entry, Ranking, Result, RuleViolation
from arena.models import Game, GameServer
from arena.same_ip import shared_addresses


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
    row: GameRow


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
    shared = shared_addresses((p.player, p.ip_hash) for p in data.players)
    return [{"code": "same_ip", "players": list(players)} for players in shared]


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
    fresh: list[_Accepted] = []
    first_in_call: dict[str, _Accepted] = {}
    repeats: list[_Accepted] = []
    for index, data in enumerate(games):
        if isinstance(data, ArenaError):
            outcomes[index] = data
            continue
        try:
            ranking = _judge(data)
            item = _Accepted(index, data, ranking, _row(data, ranking))
        except (ArenaError, RuleViolation) as refusal:
            outcomes[index] = refusal
            continue
        if data.table_id in first_in_call:
            repeats.append(item)
        else:
            first_in_call[data.table_id] = item
            fresh.append(item)

    if fresh:
        written = _write(server, fresh)
        # The tables not written were stored before (a resend, or a concurrent request that won): one lookup
        # tells a faithful resend (200) from a conflicting one (409).
        stored_ids = [item.data.table_id for item in fresh if item.data.table_id not in written]
        stored = {g.table_id: g for g in Game.objects.filter(server=server, table_id__in=stored_ids)} \
            if stored_ids else {}
        for item in fresh:
            if item.data.table_id in written:
                outcomes[item.index] = _recorded(server, item, written[item.data.table_id])
            else:
                outcomes[item.index] = _resend(stored[item.data.table_id], item.data)
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


def _lock_tables(server: GameServer, items: list[_Accepted]) -> None:
    """On PostgreSQL, serialise requests that carry the same tables, taking the locks in one sorted order.

    Two batches holding the same tables in different orders would otherwise each wait on the other's
    uncommitted unique-index entry: a deadlock instead of a clean "already recorded". One table alone cannot
    deadlock that way, so a single game skips the round trip.
    """
    if not postgres() or len(items) < 2:
        return  # SQLite transactions are IMMEDIATE: writers are already one at a time
    keys = sorted(f"{server.pk}:{item.data.table_id}" for item in items)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_advisory_xact_lock(k)) FROM "
            "(SELECT hashtextextended(t, 0) AS k FROM unnest(%s::text[]) AS t ORDER BY 1) AS keys",
            [keys],
        )


def _row(data: GameInput, ranking: Ranking) -> GameRow:
    side_of = {name: i for i, side in enumerate(ranking.sides) for name in side.players}
    places = ranking.places
    return GameRow(
        table_id=data.table_id, title=data.game, variant=ranking.variant, rated=data.rated,
        finished_at=data.finished_at, details=data.details,
        status=Game.Status.PENDING if data.rated and ranking.ratable else Game.Status.UNRATED,
        rec=ranking.rec, coop_score=ranking.coop_score, warnings=_same_ip_warnings(data),
        fingerprint=data.fingerprint,
        seats=tuple(
            SeatRow(handle=p.player, position=position, score=p.score, quit=p.quit, team=p.team,
                    side=side_of[p.player], place=places.get(p.player), fields=p.fields, ip_hash=p.ip_hash,
                    device_hash=p.device_hash)
            for position, p in enumerate(data.players)
        ),
    )


def _write(server: GameServer, items: list[_Accepted]) -> dict[str, Written]:
    """Write the games in one transaction: on PostgreSQL a single game is one statement, so needs no BEGIN."""
    rows = [item.row for item in items]
    one_statement = postgres() and len(items) == 1
    with nullcontext() if one_statement else transaction.atomic():
        _lock_tables(server, items)
        written = games_write(server.pk, rows)
        pending = {table_id for table_id, game in written.items() if game.status == Game.Status.PENDING}
        titles = {row.title for row in rows if row.table_id in pending}
        if titles:
            # Outside a transaction (the one-statement case) the announcement is delivered at once.
            announce(GamesRecorded(games=frozenset(titles)))
    return written


def _recorded(server: GameServer, item: _Accepted, written: Written) -> Recorded:
    row, places = item.row, item.ranking.places
    game = Game(
        pk=written.id, server=server, table_id=row.table_id, title=row.title, variant=row.variant,
        rated=row.rated, finished_at=row.finished_at, details=row.details, status=written.status, rec=row.rec,
        coop_score=row.coop_score, warnings=row.warnings, same_ip=bool(row.warnings),
        fingerprint=row.fingerprint,
    )
    seating = tuple((p.player, places.get(p.player)) for p in item.data.players)
    return Recorded(game, created=True, seating=seating)

