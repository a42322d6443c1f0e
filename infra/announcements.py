"""What a lower app announces after its commit, and the higher apps that listen.

Dependencies run one way (docs/architecture.md): the core never imports ratings or leaderboards, ratings never
imports leaderboards, and nothing imports moderation or matchmaking. Yet the core must wake the raters when a game
is recorded, ratings must tell the boards which players moved, and a ban must reach the boards and the matchmaker.
So the lower app *announces* a plain fact here and the higher app *subscribes* to it in its ``listeners.py``
(imported by its ``AppConfig.ready``). One small explicit hook rather than Django signals: the facts are typed,
the subscribers are listed in one place (``subscribers``) and every announcement is delivered only after the
transaction that made it true has committed, so no listener ever acts on a row that could still roll back.

Only facts that cross from one app to another live here. Work an app hands to its own workers (a void's rebuild,
a lost board's copy, a table's push) is no fact for others: it goes through ``infra.handoffs.hand_off``.

One fact is the exception, heard inside the announcing transaction (``announce_within``): a revoked game server
(``ServerRevoked``), whose waiting tickets and pending pushes must end in the same commit as its key, or not at all.

A subscriber that fails is logged and the others still hear the news: each listener has its own safety net (the
rating sweep, the board rebuild, the detection schedule), and the announcing transaction is already committed.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GamesRecorded:
    """Games waiting for the rating stage were committed in these titles."""

    titles: frozenset[str]


@dataclass(frozen=True, slots=True)
class RatingsChanged:
    """Players' ratings in one game moved: a batch was rated, a player was reset, or the game was rebuilt.

    ``cause`` is ``batch``, ``reset`` or ``rebuild``; ``game_ids`` lists the games a batch rated (empty otherwise),
    which is what incremental abuse detection reads next.
    """

    title: str
    player_ids: tuple[int, ...]
    cause: str
    game_ids: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayerStatusChanged:
    """A player was banned or unbanned (``status`` is the new one)."""

    player_id: int
    status: str


@dataclass(frozen=True, slots=True)
class ServerRevoked:
    """A game server's key was revoked: what the higher apps hold for it (matchmaking's waiting tickets and pending
    pushes) ends in the same transaction as the revocation (``announce_within``), never a moment after."""

    server_id: int


@dataclass(frozen=True, slots=True)
class PlayerWarned:
    """A moderator warned a player (``entry_id``: the audit entry that keeps the warning's text). Moderation may not
    import matchmaking, so a top-floor app hears it and pushes ``player.warned`` to the player's game servers."""

    player_id: int
    entry_id: int


@dataclass(frozen=True, slots=True)
class GamesVoided:
    """Games were voided (``arena/game_rows.py`` ``games_void_mark``, a moderator's void): tournaments take the
    voided players out of their standings (docs/tournaments.md#voids), rated or not."""

    game_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TournamentRoundPaired:
    """A tournament round's tables were committed (tournaments, docs/tournaments.md): the top floor pushes each
    table to the organising server (``doors/tournament_pushes.py``), since tournaments may not import matchmaking's
    pushes (siblings)."""

    tournament_id: int
    round: int


Announcement = (
    GamesRecorded
    | RatingsChanged
    | PlayerStatusChanged
    | ServerRevoked
    | PlayerWarned
    | GamesVoided
    | TournamentRoundPaired
)
A = TypeVar(
    "A",
    GamesRecorded,
    RatingsChanged,
    PlayerStatusChanged,
    ServerRevoked,
    PlayerWarned,
    GamesVoided,
    TournamentRoundPaired,
)

_subscribers: dict[type, list[Callable[[Any], None]]] = defaultdict(list)


def subscribe(kind: type[A], listener: Callable[[A], None]) -> None:
    """Call ``listener`` with every announcement of ``kind`` after its commit. Idempotent per listener."""
    if listener not in _subscribers[kind]:
        _subscribers[kind].append(listener)


def subscribers(kind: type) -> list[Callable[[Any], None]]:
    """The listeners of ``kind``, in subscription order (for tests and for operators reading the wiring)."""
    return list(_subscribers[kind])


_silenced = 0


@contextmanager
def silenced() -> Iterator[None]:
    """Announcements made inside are dropped. For a benchmark that times one stage alone (``bench/``): in
    production its listeners run in other workers, and each has a benchmark of its own. Never for a service."""
    global _silenced
    _silenced += 1
    try:
        yield
    finally:
        _silenced -= 1


def announce(fact: Announcement) -> None:
    """Deliver ``fact`` once the current transaction commits (at once outside a transaction)."""
    if _silenced:
        return
    transaction.on_commit(lambda: _deliver(fact))


def _deliver(fact: Announcement) -> None:
    for listener in list(_subscribers[type(fact)]):
        try:
            listener(fact)
        except Exception:
            if settings.ANNOUNCEMENTS_RAISE:
                raise
            log.exception("listener %s failed on %r", getattr(listener, "__qualname__", listener), fact)


def announce_within(fact: Announcement) -> None:
    """Deliver ``fact`` at once, inside the caller's transaction, where a listener's writes commit or roll back
    with the caller's: for a fact whose consequences must never be seen apart from it (a revoked key's tickets
    cancelled, its pushes abandoned). Unlike ``announce``, a failing listener fails the caller, which rolls the
    whole change back rather than committing half of it. Must be called inside ``transaction.atomic``."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("announce_within needs the caller's transaction")
    for listener in list(_subscribers[type(fact)]):
        listener(fact)
