"""Recording finished games: the game's rules decide places, then one transaction stores the table.

One code path serves a single POST and a batch: games are judged one by one (each fails alone), then every
accepted game of the call is written in one transaction by the recording store (``arena.recording_store``, which
alone knows the database), and the rating workers are woken after commit. A table that is already stored, whether
resent later or sent twice at once by a game server retrying on timeout, is skipped by the (server, table_id)
unique constraint and answered like any resend: 200 when it means the same game (``arena.games.meaning``: defaults
filled in, players in any order), 409 naming the fields that differ.

A transient database failure (a deadlock victim, a stale read) is retried here a few times: a game server must
never get a 500 for a valid game because another transaction was in the way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from arena.games import UnknownGame, get_game
from arena.games.meaning import differing_fields, game_meaning
from arena.games.results import Entry, Ranking, Result, RuleViolation
from arena.models import Game, GameServer, Player, Seat
from arena.recording_store import GameRow, GamesWritten, SeatRow, recording_store
from arena.same_ip import shared_addresses
from infra.announcements import GamesRecorded, announce
from infra.db import retry_transient
from infra.errors import ArenaError, Conflict, InvalidInput
from infra.hashing import fingerprint


@dataclass(frozen=True)
class GameInput:
    table_id: str
    title: str  # the API's "game"
    variant: dict[str, Any]
    rated: bool
    finished_at: datetime
    players: tuple[Entry, ...]  # hashed addresses and devices
    details: dict[str, Any]
    finished_at_sent: bool = True  # False when the body left it out (then finished_at is the time it arrived)


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
    meaning: dict[str, Any]


def _judge(data: GameInput) -> Ranking:
    try:
        rules = get_game(data.title)
    except UnknownGame:
        raise InvalidInput(
            "unknown_game", f"Arena does not rate a game called {data.title!r}.", {"game": "Unknown game."}
        ) from None
    result = Result(
        variant=data.variant,
        rated=data.rated,
        entries=data.players,
        details=data.details,
    )
    return rules.judge(result)


def _same_ip_warnings(data: GameInput) -> list[dict[str, Any]]:
    """One warning per address shared by two or more players: they have a right to know, nothing more."""
    shared = shared_addresses((p.player, p.ip_hash) for p in data.players)
    return [{"code": "same_ip", "players": list(players)} for players in shared]


def _meaning_sent(data: GameInput, ranking: Ranking) -> dict[str, Any]:
    return game_meaning(
        get_game(data.title),
        variant=ranking.variant,
        rated=data.rated,
        finished_at=data.finished_at if data.finished_at_sent else None,
        details=data.details,
        seats=data.players,
    )


def _meaning_stored(game: Game) -> dict[str, Any]:
    """The stored game's meaning, read back from its rows: only for a resend whose fingerprint differs (rare),
    which then costs one more query. Comparing rows rather than fingerprints also answers games stored before
    fingerprints were taken by meaning (their fingerprint was of the body as sent)."""
    seats = Seat.objects.filter(game_id=game.pk).values_list(
        "player__handle", "score", "quit", "team", "fields", "ip_hash", "device_hash"
    )
    return game_meaning(
        get_game(game.title),
        variant=game.variant,
        rated=game.rated,
        finished_at=game.finished_at,
        details=game.details,
        seats=(Entry(*seat) for seat in seats),
    )


def _fingerprint(meaning: dict[str, Any]) -> str:
    """A keyed hash of the meaning: equal for every body that means the same game, and cheap to compare."""
    try:
        canonical = orjson.dumps(meaning, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an integer beyond 64 bits in the details: the standard library takes it
        canonical = json.dumps(meaning, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return fingerprint(canonical)


def _resend(stored: Game, item: _Accepted) -> Outcome:
    """200 with the stored game when the resend means the same game (docs/api.md), else 409 naming what differs."""
    if stored.fingerprint == item.row.fingerprint:
        return Recorded(stored, created=False)
    order = {p.player: index for index, p in enumerate(item.data.players)}
    differing = differing_fields(_meaning_stored(stored), item.meaning, order)
    if not differing:
        return Recorded(stored, created=False)
    return Conflict(
        "table_conflict",
        f"Table {item.data.table_id!r} was already recorded with a different result; fields names what differs.",
        differing,
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
            meaning = _meaning_sent(data, ranking)
            item = _Accepted(index, data, ranking, _row(data, ranking, _fingerprint(meaning)), meaning)
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
        stored = (
            {g.table_id: g for g in Game.objects.filter(server=server, table_id__in=stored_ids)} if stored_ids else {}
        )
        for item in fresh:
            if item.data.table_id in written:
                outcomes[item.index] = _recorded(server, item, written[item.data.table_id])
            else:
                outcomes[item.index] = _resend(stored[item.data.table_id], item)
    for item in repeats:
        first = outcomes[first_in_call[item.data.table_id].index]
        outcomes[item.index] = _resend(first.game, item) if isinstance(first, Recorded) else first
    return outcomes  # type: ignore[return-value]


def game_record(*, server: GameServer, data: GameInput) -> Recorded:
    """Record one game; raises its refusal."""
    (outcome,) = games_record(server=server, games=[data])
    if isinstance(outcome, Recorded):
        return outcome
    raise outcome


def game_status(*, wants_rating: bool, player_statuses: Iterable[str]) -> str:
    """The status a game is recorded with: pending (waiting for the rating stage) or unrated.

    A game is rated when its server asked for it and its rules can rate it (more than one side, a rated
    variant), and nobody at the table is banned: a banned player's new games are recorded but rated for nobody
    (docs/moderation.md), not even for the others at the table. Games recorded before a ban keep their status.
    """
    if wants_rating and all(status != Player.Status.BANNED for status in player_statuses):
        return Game.Status.PENDING
    return Game.Status.UNRATED


def _status_of(row: GameRow, player_statuses: Mapping[str, str]) -> str:
    return game_status(wants_rating=row.wants_rating, player_statuses=player_statuses.values())


def _row(data: GameInput, ranking: Ranking, fingerprint: str) -> GameRow:
    side_of = {name: i for i, side in enumerate(ranking.sides) for name in side.players}
    places = ranking.places
    warnings = _same_ip_warnings(data)
    return GameRow(
        table_id=data.table_id,
        title=data.title,
        variant=ranking.variant,
        rated=data.rated,
        wants_rating=data.rated and ranking.ratable,
        finished_at=data.finished_at,
        details=data.details,
        recommended_sides=ranking.recommended_sides,
        coop_score=ranking.coop_score,
        warnings=warnings,
        same_ip=bool(warnings),
        fingerprint=fingerprint,
        seats=tuple(
            SeatRow(
                handle=p.player,
                position=position,
                score=p.score,
                quit=p.quit,
                team=p.team,
                side=side_of[p.player],
                place=places.get(p.player),
                fields=dict(p.fields),
                ip_hash=p.ip_hash,
                device_hash=p.device_hash,
            )
            for position, p in enumerate(data.players)
        ),
    )


def _write(server: GameServer, items: list[_Accepted]) -> dict[str, GamesWritten]:
    """Store the games (one transaction, run again if the database aborted it), then announce the pending ones."""
    rows = [item.row for item in items]
    store = recording_store()
    written = retry_transient(lambda: store.games_write(server_id=server.pk, rows=rows, status_of=_status_of))
    titles = {
        row.title for row in rows if row.table_id in written and written[row.table_id].status == Game.Status.PENDING
    }
    if titles:
        # Delivered once the write has committed: at once, or when the caller's own transaction commits.
        announce(GamesRecorded(titles=frozenset(titles)))
    return written


def _recorded(server: GameServer, item: _Accepted, written: GamesWritten) -> Recorded:
    row, places = item.row, item.ranking.places
    game = Game(
        pk=written.id,
        server=server,
        table_id=row.table_id,
        title=row.title,
        variant=row.variant,
        rated=row.rated,
        finished_at=row.finished_at,
        details=row.details,
        status=written.status,
        recommended_sides=row.recommended_sides,
        coop_score=row.coop_score,
        warnings=row.warnings,
        same_ip=row.same_ip,
        fingerprint=row.fingerprint,
    )
    seating = tuple((p.player, places.get(p.player)) for p in item.data.players)
    return Recorded(game, created=True, seating=seating)
