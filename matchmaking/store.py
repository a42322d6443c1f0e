"""The rows a pass moves: the pool loaded in one query (after its keys, on PostgreSQL), the tables and ticket
statuses written in one statement.

Why hand-written SQL: a pass over 100,000 waiting tickets must stay within seconds, and the ORM spends longer
building model instances than the database spends answering. On PostgreSQL the whole write is one statement fed by
one JSON document (the tables) and arrays (``unnest``, the tickets); SQLite (the embedded mode, small pools) takes
the ORM path with the same meaning. Elo and TrueSkill are read from the ratings app's table
(``ratings.models.Rating``), which sits below.
"""
from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
from django.db import connection
from django.db.models import Case, UUIDField, Value, When
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from arena.models import Player
from infra.db import pg_cursor
from matchmaking import engine, events
from matchmaking.ids import uuid7_texts
from matchmaking.models import Delivery, OpenSeat, Pool, Preferences, ServerCallback, Table, Ticket, TicketSeat
from ratings import settled
from ratings.config import elo_config
from ratings.models import Rating, Reputation
from ratings.reputation import reputation
from ratings.skill import DEFAULT_SKILL

_TICKET = Ticket._meta.db_table
_SEAT = TicketSeat._meta.db_table
_OPEN = OpenSeat._meta.db_table
_TABLE = Table._meta.db_table
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
LOAD_SQL_POSTGRES = _LOAD_SQL.format(ident="t.id::text", queued="EXTRACT(EPOCH FROM t.created_at)::float8",
                                     by_key=_BY_KEY)


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


@dataclass
class PassWritten:
    deliveries: list[Any] = field(default_factory=list)


def pool_load(*, pool: Pool) -> Loaded:
    """Every waiting ticket of ``pool`` with its players' Elo, TrueSkill and preferences: one query
    (PostgreSQL reads the keys first)."""
    return _tickets(_backend().load_rows(pool))


def _tickets(rows: Sequence[tuple]) -> Loaded:
    """The engine's tickets from the load's rows (a row per seat, in any order): a party's friends are the rows
    of its ticket after position 0, in position order."""
    initial = elo_config().initial
    default_skill = (DEFAULT_SKILL.mu, DEFAULT_SKILL.sigma)
    friends: dict[Any, list[tuple]] = {}
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
    for (key, queued, low, high, server, position, handle, ip, elo, mu, sigma, refuses, blocked, least, games,
         recent, avoid, _) in rows:
        standing_of[handle] = (initial if elo is None else elo, games or 0)
        if position:
            continue
        ident = key if isinstance(key, str) else str(key)
        key_of[ident] = key
        server_of[ident] = server
        party = friends.get(key)
        # Positional arguments, in the order of engine.Ticket's fields: a keyword call costs a third more, and a
        # large pool makes 100,000 of them.
        tickets.append(Ticket_(
            ident, handle, ip, initial if elo is None else elo, default_skill if mu is None else (mu, sigma),
            low, high, bool(refuses), queued if isinstance(queued, float) else _epoch(queued),
            _blocked(blocked) if blocked else none, _party(party, initial, default_skill) if party else (),
            reputation(recent).percent if recent else None, least,
        ))
        if provisional is not None:
            ticket = tickets[-1]
            ticket.avoid_provisional = bool(avoid)
            ticket.provisional = handle in provisional
            for member in ticket.party:
                member.provisional = member.player in provisional
    return Loaded(tickets, server_of, key_of, standing_of)


def _provisional_of(rows: Sequence[tuple]) -> set[str]:
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


def _party(rows: list[tuple], initial: float, default_skill: tuple[float, float]) -> tuple[engine.Member, ...]:
    return tuple(
        engine.Member(player=row[6], ip_hash=row[7], elo=initial if row[8] is None else row[8],
                      skill=default_skill if row[9] is None else (row[9], row[10]), refuses_same_ip=bool(row[11]),
                      blocked=_blocked(row[12]), reputation=reputation(row[15]).percent if row[15] else None)
        for row in sorted(rows, key=_position)
    )


def _position(row: tuple) -> int:
    return row[5]


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
    return moment.timestamp()


def table_json(table: engine.Table) -> tuple[list[str], list[dict[str, Any]]]:
    """A formed table's players (seating order) and warnings, as stored and shown."""
    return list(table.players), [{"code": w.code, "players": list(w.players)} for w in table.warnings]


def table_standings(players: list[str], loaded: Loaded) -> list[list[float | int]]:
    """[elo, rated games] of each player at formation, seating order: what its stakes are computed from."""
    standing_of = loaded.standing_of
    return [list(standing_of[player]) for player in players]


def pass_write(*, pool: Pool, loaded: Loaded, tables: Sequence[engine.Table], expired: Sequence[str],
               now: datetime) -> PassWritten:
    """Stores the pass inside the caller's transaction; raises if any ticket was no longer waiting."""
    # Table ids as text from the start: they travel as text (JSON, array literals), never as UUID objects. Time
    # ordered (matchmaking/ids.py): tables are never deleted, and a pass's thousands land on the index's last pages.
    rows = list(zip(uuid7_texts(len(tables)), tables, strict=True))
    seats = [(loaded.key_of[t.id], key) for key, table in rows for t in table.tickets]
    closed_expired = [loaded.key_of[i] for i in expired]
    _backend().write(pool, rows, seats, closed_expired, loaded, now)
    written = PassWritten()
    if rows:
        written.deliveries = _deliveries(rows, loaded, now)
    if closed_expired:  # ticket.expired, pushed with the tables after the pass's commit
        written.deliveries += events.ticket_closed_deliveries(ticket_ids=closed_expired, now=now)
    return written


class StaleTicket(RuntimeError):
    """A ticket the pass seated was no longer waiting: the pass is rolled back, nothing is written."""


def _uuids(keys: Sequence[Any]) -> str:
    """An array literal of uuids, cast by the server (``%s::uuid[]``): far cheaper than adapting each value."""
    return "{" + ",".join(map(str, keys)) + "}"


class _PostgresPass:
    """One statement per kind of row, over arrays or one JSON document: seconds at 100,000 tickets."""

    def load_rows(self, pool: Pool) -> list[tuple]:
        with pg_cursor() as cur:
            # For the rest of the pass's transaction: the arrays of a large pass's writes fit in memory.
            cur.execute("SET LOCAL work_mem = '32MB'")
            cur.execute(LOAD_SQL_POSTGRES, load_params(cur, pool))
            return cur.fetchall()

    def write(self, pool: Pool, rows: list[tuple[str, engine.Table]], seats: list[tuple[Any, str]],
              expired: list[Any], loaded: Loaded, now: datetime) -> None:
        _write_postgres(pool, rows, seats, expired, loaded, now)


class _PortablePass:
    """The ORM with the same meaning, for SQLite (the embedded mode's pools are small)."""

    def load_rows(self, pool: Pool) -> list[tuple]:
        with connection.cursor() as cur:
            cur.execute(_LOAD_SQL.format(ident="t.id", queued="t.created_at", by_key=""), [pool.title, pool.pk])
            return cur.fetchall()

    def write(self, pool: Pool, rows: list[tuple[str, engine.Table]], seats: list[tuple[Any, str]],
              expired: list[Any], loaded: Loaded, now: datetime) -> None:
        _write_orm(pool, rows, expired, loaded, now)


@functools.cache
def _backend() -> _PostgresPass | _PortablePass:
    """Chosen once per process: the database a process talks to does not change while it runs."""
    return _PostgresPass() if connection.vendor == "postgresql" else _PortablePass()


# The whole pass in one statement: the tables from one JSON document, the matched and expired tickets from arrays
# (cast by the server), their open seats freed, the pool stamped. The ticket updates are conditional (still
# waiting), and the caller checks that every seated ticket was updated (StaleTicket otherwise, rolled back).
_WRITE_SQL = f"""
WITH formed AS (
    INSERT INTO {_TABLE} (id, pool_id, title, variant, rated, players, warnings, formed_at, standings)
    SELECT x.i, %(pool)s, %(title)s, %(variant)s::jsonb, %(rated)s, x.p, x.w, %(now)s, x.s
    FROM jsonb_to_recordset(%(tables)s::jsonb) AS x(i uuid, p jsonb, w jsonb, s jsonb)
), matched AS (
    UPDATE {_TICKET} t SET status = 'matched', table_id = u.tb, closed_at = %(now)s
    FROM unnest(%(seated)s::uuid[], %(seated_at)s::uuid[]) AS u(id, tb)
    WHERE t.id = u.id AND t.status = 'waiting'
    RETURNING t.id
), expired AS (
    UPDATE {_TICKET} t SET status = 'expired', closed_at = %(now)s
    FROM unnest(%(expired)s::uuid[]) AS u(id)
    WHERE t.id = u.id AND t.status = 'waiting'
    RETURNING t.id
), freed AS (
    DELETE FROM {_OPEN} o USING (SELECT id FROM matched UNION ALL SELECT id FROM expired) c
    WHERE o.ticket_id = c.id
), stamped AS (
    UPDATE {Pool._meta.db_table} SET last_pass_at = %(now)s WHERE id = %(pool)s
)
SELECT count(*) FROM matched
"""


def _write_postgres(pool: Pool, rows: list[tuple[str, engine.Table]],
                    seats: list[tuple[Any, str]], expired: list[Any], loaded: Loaded, now: datetime) -> None:
    doc = [{"i": key, "p": players, "w": warnings, "s": table_standings(players, loaded)}
           for key, table in rows for players, warnings in [table_json(table)]]
    with pg_cursor(binary=False) as cur:
        cur.execute(_WRITE_SQL, {
            "pool": pool.pk, "title": pool.title, "variant": json.dumps(pool.variant), "rated": pool.rated,
            # orjson: the document holds text only (ids, handles, warning codes), which it writes ten times faster.
            "now": now, "tables": orjson.dumps(doc).decode(), "seated": _uuids([t for t, _ in seats]),
            "seated_at": _uuids([tb for _, tb in seats]), "expired": _uuids(expired),
        })
        (updated,) = cur.fetchone()
    if updated != len(seats):
        raise StaleTicket(f"{len(seats) - updated} ticket(s) of the pass were no longer waiting")


def _write_orm(pool: Pool, rows: list[tuple[str, engine.Table]], expired: list[Any], loaded: Loaded,
               now: datetime) -> None:
    objects = []
    for key, table in rows:
        players, warnings = table_json(table)
        objects.append(Table(id=key, pool=pool, title=pool.title, variant=pool.variant, rated=pool.rated,
                             players=players, warnings=warnings, formed_at=now,
                             standings=table_standings(players, loaded)))
    Table.objects.bulk_create(objects)
    closed = [loaded.key_of[t.id] for _, table in rows for t in table.tickets]
    if closed:
        # One statement for every seated ticket, each given its table by a CASE, as the PostgreSQL statement does
        # from its arrays: a pass costs the same number of queries whatever the number of tables it forms
        # (tests/db/matchmaking/test_query_counts.py).
        table_of = Case(*(When(pk__in=[loaded.key_of[t.id] for t in table.tickets], then=Value(uuid.UUID(key)))
                          for key, table in rows), output_field=UUIDField())
        done = Ticket.objects.filter(pk__in=closed, status=Ticket.Status.WAITING).update(
            status=Ticket.Status.MATCHED, table_id=table_of, closed_at=now)
        if done != len(closed):
            raise StaleTicket(f"{len(closed) - done} ticket(s) of the pass were no longer waiting")
    if expired:
        Ticket.objects.filter(pk__in=expired, status=Ticket.Status.WAITING).update(
            status=Ticket.Status.EXPIRED, closed_at=now)
        closed.extend(expired)
    if closed:
        OpenSeat.objects.filter(ticket_id__in=closed).delete()
    Pool.objects.filter(pk=pool.pk).update(last_pass_at=now)


def _deliveries(rows: list[tuple[str, engine.Table]], loaded: Loaded, now: datetime) -> list[Any]:
    """A push per (table, game server with a callback) among the servers whose tickets sit at the table."""
    # The pool's servers (a few), not those of every seated ticket (thousands): most have no callback at all.
    servers = set(loaded.server_of.values())
    urls = dict(ServerCallback.objects.filter(server_id__in=servers, enabled=True, server__revoked_at__isnull=True)
                .values_list("server_id", "url"))
    if not urls:
        return []
    deliveries = []
    for key, table in rows:
        for server_id in sorted({loaded.server_of[t.id] for t in table.tickets} & urls.keys()):
            mine = sorted(str(uuid.UUID(str(loaded.key_of[t.id]))) for t in table.tickets
                          if loaded.server_of[t.id] == server_id)
            deliveries.append(Delivery(server_id=server_id, table_id=key, url=urls[server_id], created_at=now,
                                       next_attempt_at=now, tickets=mine))
    Delivery.objects.bulk_create(deliveries)
    return [d.pk for d in deliveries]


_PURGE_SQL = f"""
WITH doomed AS (
    SELECT id FROM {_TICKET}
    WHERE created_at < %(cutoff)s AND status <> 'waiting' AND closed_at < %(cutoff)s
    ORDER BY created_at LIMIT %(chunk)s FOR UPDATE SKIP LOCKED
), seats AS (
    DELETE FROM {_SEAT} s USING doomed d WHERE s.ticket_id = d.id
)
DELETE FROM {_TICKET} t USING doomed d WHERE t.id = d.id
"""


def tickets_closed_delete(*, cutoff: datetime, size: int) -> int:
    """At most ``size`` closed tickets created and closed before ``cutoff``, oldest first, deleted with their seats
    (the history purge's chunk, matchmaking/history.py): on PostgreSQL one statement that skips locked rows,
    elsewhere the ORM with the same meaning. Returns how many tickets went."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_PURGE_SQL, {"cutoff": cutoff, "chunk": size})
            return cursor.rowcount
    ids = list(Ticket.objects.filter(created_at__lt=cutoff, closed_at__lt=cutoff)
               .exclude(status=Ticket.Status.WAITING).order_by("created_at").values_list("pk", flat=True)[:size])
    TicketSeat.objects.filter(ticket_id__in=ids).delete()
    Ticket.objects.filter(pk__in=ids).delete()
    return len(ids)
