"""A pass's load: every waiting ticket of a pool, with its players' Elo, TrueSkill, preferences and reputation, as
the engine's tickets, in one query (PostgreSQL reads the keys first; see ``LOAD_SQL_POSTGRES``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from arena.models import Player
from infra.db import pg_cursor
from matchmaking import engine
from matchmaking.models import OpenSeat, Pool, Preferences, Ticket
from ratings import settled
from ratings.config import elo_config
from ratings.models import Rating, Reputation
from ratings.reputation import reputation_percent
from ratings.skill import DEFAULT_SKILL

# A row of the load: one seat of a waiting ticket, the columns of _LOAD_SQL in order.
Row = tuple[Any, ...]

_TICKET = Ticket._meta.db_table
_OPEN = OpenSeat._meta.db_table
_PLAYER = Player._meta.db_table
_RATING = Rating._meta.db_table
_PREFS = Preferences._meta.db_table
_REPUTATION = Reputation._meta.db_table

# The waiting players are the pool's open seats (deleted as tickets close), so the ticket table, which only grows,
# is read by primary key alone. Unordered: sorting 100,000 rows cost the database more than grouping a ticket's
# seats costs Python (_tickets), and the engine's result does not depend on the order of the pool.
_LOAD_SQL = f"""
SELECT {{ident}}, {{queued}}, t.min_players, t.max_players, t.server_id, s.position, p.handle, s.ip_hash,
       r.elo, r.ts_mu, r.ts_sigma, pr.refuse_same_ip, pr.blocked, t.min_reputation, r.games, rep.recent,
       t.avoid_provisional, r.last_game_at
FROM {_OPEN} s
JOIN {_TICKET} t ON t.id = s.ticket_id
JOIN {_PLAYER} p ON p.id = s.player_id
LEFT JOIN {_RATING} r ON r.player_id = s.player_id AND r.title = %s
LEFT JOIN {_PREFS} pr ON pr.player_id = s.player_id
LEFT JOIN {_REPUTATION} rep ON rep.player_id = s.player_id
WHERE s.pool_id = %s AND t.status = 'waiting' {{by_key}}
"""

# PostgreSQL: the waiting tickets' keys handed to the ticket table's index as one array, so that its only way in is
# a lookup per key, whatever the statistics say. The join alone leaves the planner free to merge-join the open
# seats with the primary key in key order; with time-ordered ids (matchmaking/ids.py) the waiting keys all sort
# together, that plan looks cheap, and it walks the index (and the heap, for the status) through every closed
# ticket before them: 82 s instead of 0.2 s beside 5 million closed tickets (bench/matchmaking_bench.py --closed).
# The keys are read first and sent back as a literal array, not as ``ANY(ARRAY(SELECT ...))``: the planner knows
# a literal's length and guesses 10 rows for a subquery's, and with 10 rows it probed every other table by index
# per row (and the open seats twice); with the true count it hashes the small ones. Issue 24 §3, same run: the load
# of 10,000 tickets, median 0.96 s that way against 0.60 s this way (docs/testing.md, "Workers and pools").
_KEYS_SQL = f"SELECT ticket_id::text FROM {_OPEN} WHERE pool_id = %s AND position = 0"
_BY_KEY = "AND t.id = ANY(%s::uuid[])"
# date_part, not EXTRACT: EXTRACT computes a numeric per row, then cast to float8; date_part divides the same exact
# microseconds in float8, correctly rounded either way, so the same seconds come out, for a tenth less of the load's
# time in the database (issue 24 §3).
LOAD_SQL_POSTGRES = _LOAD_SQL.format(ident="t.id::text", queued="date_part('epoch', t.created_at)", by_key=_BY_KEY)


def load_params(cur: Any, pool: Pool) -> list[Any]:
    """The parameters of ``LOAD_SQL_POSTGRES`` for ``pool``: its title, its key and its waiting tickets' keys."""
    cur.execute(_KEYS_SQL, [pool.pk])
    return [pool.title, pool.pk, "{" + ",".join([row[0] for row in cur.fetchall()]) + "}"]


@dataclass
class Loaded:
    """The waiting tickets of a pool as the engine sees them, with what the write needs to know of each."""

    tickets: list[engine.Ticket]
    server_of: dict[str, int]
    key_of: dict[str, Any]
    # handle -> (elo, rated games) in the pool's title: the standings a formed table stores for its stakes.
    standing_of: dict[str, tuple[float, int]] = field(default_factory=dict)


def pool_load(*, pool: Pool) -> Loaded:
    """Every waiting ticket of ``pool`` with its players' Elo, TrueSkill and preferences: one query
    (PostgreSQL reads the keys first)."""
    return _tickets(_load_rows(pool))


def _load_rows(pool: Pool) -> list[Row]:
    if connection.vendor == "postgresql":
        with pg_cursor() as cur:
            # For the rest of the pass's transaction: the arrays of a large pass's writes fit in memory.
            cur.execute("SET LOCAL work_mem = '32MB'")
            cur.execute(LOAD_SQL_POSTGRES, load_params(cur, pool))
            rows: list[Row] = cur.fetchall()
            return rows
    # SQLite (the embedded mode's pools are small): the same query without the keys read first.
    with connection.cursor() as cur:
        cur.execute(_LOAD_SQL.format(ident="t.id", queued="t.created_at", by_key=""), [pool.title, pool.pk])
        portable_rows: list[Row] = cur.fetchall()
        return portable_rows


def _tickets(rows: Sequence[Row]) -> Loaded:
    """The engine's tickets from the load's rows (a row per seat, in any order): a party's friends are the rows
    of its ticket after position 0, in position order."""
    initial = elo_config().initial
    default_skill = (DEFAULT_SKILL.mu, DEFAULT_SKILL.sigma)
    friends: dict[Any, list[Row]] = {}
    for row in rows:
        if row[5]:
            friends.setdefault(row[0], []).append(row)
    tickets: list[engine.Ticket] = []
    server_of: dict[str, int] = {}
    key_of: dict[str, Any] = {}
    standing_of: dict[str, tuple[float, int]] = {}
    Ticket_, none = engine.Ticket, _NONE
    # Who is provisional is only worked out in a pool where someone asks to avoid them (docs/matchmaking.md).
    provisional = _provisional_of(rows) if any(row[16] for row in rows) else None
    for (
        key,
        queued,
        low,
        high,
        server,
        position,
        handle,
        ip,
        elo,
        mu,
        sigma,
        refuses,
        blocked,
        least,
        games,
        recent,
        avoid,
        _,
    ) in rows:
        standing_of[handle] = (initial if elo is None else elo, games or 0)
        if position:
            continue
        ident = key if isinstance(key, str) else str(key)
        key_of[ident] = key
        server_of[ident] = server
        party = friends.get(key)
        # Positional arguments, in the order of engine.Ticket's fields: a keyword call costs a third more, and a
        # large pool makes 100,000 of them.
        tickets.append(
            Ticket_(
                ident,
                handle,
                ip,
                initial if elo is None else elo,
                default_skill if mu is None else (mu, sigma),
                low,
                high,
                bool(refuses),
                queued if isinstance(queued, float) else _epoch(queued),
                _blocked(blocked) if blocked else none,
                _party(party, initial, default_skill) if party else (),
                reputation_percent(recent) if recent else None,
                least,
            )
        )
        if provisional is not None:
            ticket = tickets[-1]
            ticket.avoid_provisional = bool(avoid)
            ticket.provisional = handle in provisional
            for member in ticket.party:
                member.provisional = member.player in provisional
    return Loaded(tickets, server_of, key_of, standing_of)


def _provisional_of(rows: Sequence[Row]) -> set[str]:
    """The handles whose rating in the pool's title is provisional now (docs/ratings.md, "How settled is a
    rating"): from games played and days since the last rated game, as the player page shows it."""
    now, config = timezone.now(), elo_config()
    found = set()
    for row in rows:
        last = row[17]
        if last is not None and (not isinstance(last, datetime) or last.tzinfo is None):
            last = datetime.fromtimestamp(_epoch(last if isinstance(last, str) else last.isoformat()), tz=UTC)
        if settled.elo_settledness(row[14] or 0, settled.days_away(last, now), config).provisional:
            found.add(row[6])
    return found


def _party(rows: list[Row], initial: float, default_skill: tuple[float, float]) -> tuple[engine.Member, ...]:
    return tuple(
        engine.Member(
            player=row[6],
            ip_hash=row[7],
            elo=initial if row[8] is None else row[8],
            skill=default_skill if row[9] is None else (row[9], row[10]),
            refuses_same_ip=bool(row[11]),
            blocked=_blocked(row[12]),
            reputation=reputation_percent(row[15]) if row[15] else None,
        )
        for row in sorted(rows, key=_position)
    )


def _position(row: Row) -> int:
    position: int = row[5]
    return position


_NONE: frozenset[str] = frozenset()


def _blocked(raw: Any) -> frozenset[str]:
    if not raw:
        return _NONE
    if isinstance(raw, str):
        raw = json.loads(raw)
    return frozenset(raw) if raw else _NONE


def _epoch(value: Any) -> float:
    """SQLite hands back the stored text of a timestamp (UTC, as Django writes it)."""
    if isinstance(value, datetime):
        return value.timestamp()
    moment = parse_datetime(str(value))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    stamp: float = moment.timestamp()
    return stamp
