"""The storage seam of recording: one interface that moves the rows of recorded games, their seats and new players.

Recording (``arena.recording``) judges games and decides what they are; a store only moves rows. The backend is
chosen once per process, at first use, from the database vendor: ``postgres`` (a batch or a single game in one
statement fed by one JSON document, the throughput path) or ``portable`` (the ORM, serving SQLite, the embedded
mode). No code outside this package asks which database it runs on.

The one rule that needs stored state, a game's status given its players' statuses (a banned player's new games
are rated for nobody), stays in Python: the caller passes it as ``status_of`` and the store calls it with the
statuses it read, and stores what it returns. A store guarantees the statuses it hands to ``status_of`` are the
ones the game is written under (a ban committed concurrently is either seen or waits for the game's commit).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from django.db import connection


@dataclass(frozen=True)
class SeatRow:
    handle: str
    position: int
    score: int | None
    quit: bool
    team: str | None
    side: int
    place: int | None
    fields: dict[str, Any]
    ip_hash: str
    device_hash: str | None


@dataclass(frozen=True)
class GameRow:
    table_id: str
    title: str
    variant: dict[str, Any]
    rated: bool
    wants_rating: bool  # rated as asked and ratable by its rules; its players' statuses decide the rest
    finished_at: datetime
    details: dict[str, Any]
    recommended_sides: int | None
    coop_score: int | None
    warnings: list[dict[str, Any]]
    same_ip: bool
    fingerprint: str
    seats: tuple[SeatRow, ...]


@dataclass(frozen=True)
class GamesWritten:
    id: int
    status: str


# (game, {handle: player status} for each of its players) -> the game's status. A player not stored yet is
# given the status a new player is created with.
StatusRule = Callable[[GameRow, Mapping[str, str]], str]


class RecordingStore(Protocol):
    def games_write(self, *, server_id: int, rows: Sequence[GameRow], status_of: StatusRule) -> dict[str, GamesWritten]:
        """Store, in one transaction, the games whose table this server has not stored yet, in the given order.

        Returns the written games by table id; a table missing from the answer was already stored (a resend, or
        a concurrent request that committed it first) and nothing of it was written, players included. Unknown
        players are created. A transient failure (deadlock, stale read) propagates as ``DatabaseError`` with
        nothing written; the caller may run the call again (``infra.db.retry_transient``).
        """
        ...


@functools.cache
def recording_store() -> RecordingStore:
    """The store of this process, chosen once: the database a process talks to does not change while it runs."""
    if connection.vendor == "postgresql":
        from arena.recording_store.postgres import RecordingPostgresStore

        return RecordingPostgresStore()
    from arena.recording_store.portable import RecordingPortableStore

    return RecordingPortableStore()
