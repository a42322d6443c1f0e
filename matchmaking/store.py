"""The rows a pass moves: the pool loaded in one query, the tables and ticket statuses written in a few statements.

Why hand-written SQL: a pass over 100,000 waiting tickets must stay within seconds, and the ORM spends longer
building model instances than the database spends answering. On PostgreSQL every write is one statement over
arrays (``unnest``) or one JSON document; SQLite (the embedded mode, small pools) takes the ORM path with the same
meaning. Elo and TrueSkill are read from the ratings app's table (``ratings.models.Rating``), which sits below.
"""
from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection
from django.utils.dateparse import parse_datetime

from arena.db import pg_cursor
from arena.models import Player
from matchmaking import engine
from matchmaking.models import Delivery, OpenSeat, Pool, Preferences, ServerCallback, Table, Ticket, TicketSeat
from ratings.config import elo_config
from ratings.models import Rating
from ratings.skill import DEFAULT_SKILL

_TICKET = Ticket._meta.db_table
_SEAT = TicketSeat._meta.db_table
_OPEN = OpenSeat._meta.db_table
_TABLE = Table._meta.db_table
_PLAYER = Player._meta.db_table
_RATING = Rating._meta.db_table
_PREFS = Preferences._meta.db_table

# The waiting players are the pool's open seats (deleted as tickets close), so the ticket table, which only grows,
# is read by primary key alone.
_LOAD_SQL = f"""
SELECT {{ident}}, {{queued}}, t.min_players, t.max_players, t.server_id, s.position, p.handle, s.ip_hash,
       r.elo, r.ts_mu, r.ts_sigma, pr.refuse_same_ip, pr.blocked
FROM {_OPEN} s
JOIN {_TICKET} t ON t.id = s.ticket_id
JOIN {_PLAYER} p ON p.id = s.player_id
LEFT JOIN {_RATING} r ON r.player_id = s.player_id AND r.title = %s
LEFT JOIN {_PREFS} pr ON pr.player_id = s.player_id
WHERE s.pool_id = %s AND t.status = 'waiting'
ORDER BY 1, s.position
"""


@dataclass
class Loaded:
    """The waiting tickets of a pool as the engine sees them, with what the write needs to know of each."""

    tickets: list[engine.Ticket]
    server_of: dict[str, int]
    key_of: dict[str, Any]


@dataclass
class Written:
    deliveries: list[Any] = field(default_factory=list)


def pool_load(*, pool: Pool) -> Loaded:
    """Every waiting ticket of ``pool`` with its players' Elo, TrueSkill and preferences: one query."""
    return _tickets(_backend().load_rows(pool))


def _tickets(rows: Sequence[tuple]) -> Loaded:
    initial = elo_config().initial
    default_skill = (DEFAULT_SKILL.mu, DEFAULT_SKILL.sigma)
    tickets: list[engine.Ticket] = []
    server_of: dict[str, int] = {}
    key_of: dict[str, Any] = {}
    Member, Ticket_ = engine.Member, engine.Ticket
    head: tuple | None = None
    party: list[engine.Member] = []

    def flush() -> None:
        (key, queued, low, high, server, _pos, handle, ip, elo, mu, sigma, refuses, blocked) = head
        ident = key if isinstance(key, str) else str(key)
        key_of[ident] = key
        server_of[ident] = server
        tickets.append(Ticket_(
            id=ident, player=handle, ip_hash=ip, elo=initial if elo is None else elo,
            skill=default_skill if mu is None else (mu, sigma), min_players=low, max_players=high,
            refuses_same_ip=bool(refuses), queued_at=queued if isinstance(queued, float) else _epoch(queued),
            blocked=_blocked(blocked), party=tuple(party),
        ))

    for row in rows:
        if row[5] == 0:
            if head is not None:
                flush()
            head, party = row, []
        else:
            elo, mu, sigma, refuses, blocked = row[8:13]
            party.append(Member(
                player=row[6], ip_hash=row[7], elo=initial if elo is None else elo,
                skill=default_skill if mu is None else (mu, sigma), refuses_same_ip=bool(refuses),
                blocked=_blocked(blocked),
            ))
    if head is not None:
        flush()
    return Loaded(tickets, server_of, key_of)


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
        from datetime import UTC

        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def table_json(table: engine.Table) -> tuple[list[str], list[dict[str, Any]]]:
    """A formed table's players (seating order) and warnings, as stored and shown."""
    return list(table.players), [{"code": w.code, "players": list(w.players)} for w in table.warnings]


def pass_write(*, pool: Pool, loaded: Loaded, tables: Sequence[engine.Table], expired: Sequence[str],
               now: datetime) -> Written:
    """Stores the pass inside the caller's transaction; raises if any ticket was no longer waiting."""
    # Table ids as text from the start: they travel as text (JSON, array literals), never as UUID objects.
    rows = [(str(uuid.uuid4()), table) for table in tables]
    seats = [(loaded.key_of[t.id], key) for key, table in rows for t in table.tickets]
    closed_expired = [loaded.key_of[i] for i in expired]
    _backend().write(pool, rows, seats, closed_expired, loaded, now)
    written = Written()
    if rows:
        written.deliveries = _deliveries(rows, loaded, now)
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
            cur.execute(_LOAD_SQL.format(ident="t.id::text", queued="EXTRACT(EPOCH FROM t.created_at)::float8"),
                        [pool.game, pool.pk])
            return cur.fetchall()

    def write(self, pool: Pool, rows: list[tuple[str, engine.Table]], seats: list[tuple[Any, str]],
              expired: list[Any], loaded: Loaded, now: datetime) -> None:
        _write_postgres(pool, rows, seats, expired, now)


class _PortablePass:
    """The ORM with the same meaning, for SQLite (the embedded mode's pools are small)."""

    def load_rows(self, pool: Pool) -> list[tuple]:
        with connection.cursor() as cur:
            cur.execute(_LOAD_SQL.format(ident="t.id", queued="t.created_at"), [pool.game, pool.pk])
            return cur.fetchall()

    def write(self, pool: Pool, rows: list[tuple[str, engine.Table]], seats: list[tuple[Any, str]],
              expired: list[Any], loaded: Loaded, now: datetime) -> None:
        _write_orm(pool, rows, expired, loaded, now)


@functools.cache
def _backend() -> _PostgresPass | _PortablePass:
    """Chosen once per process: the database a process talks to does not change while it runs."""
    return _PostgresPass() if connection.vendor == "postgresql" else _PortablePass()


def _write_postgres(pool: Pool, rows: list[tuple[str, engine.Table]],
                    seats: list[tuple[Any, str]], expired: list[Any], now: datetime) -> None:
    with pg_cursor(binary=False) as cur:
        if rows:
            doc = [{"i": key, "p": players, "w": warnings}
                   for key, table in rows for players, warnings in [table_json(table)]]
            cur.execute(
                f"INSERT INTO {_TABLE} (id, pool_id, game, variant, rated, players, warnings, formed_at) "
                f"SELECT x.i, %s, %s, %s::jsonb, %s, x.p, x.w, %s "
                f"FROM jsonb_to_recordset(%s::jsonb) AS x(i uuid, p jsonb, w jsonb)",
                [pool.pk, pool.game, json.dumps(pool.variant), pool.rated, now, json.dumps(doc)],
            )
        if seats:
            cur.execute(
                f"UPDATE {_TICKET} t SET status = 'matched', table_id = u.tb, closed_at = %s "
                f"FROM unnest(%s::uuid[], %s::uuid[]) AS u(id, tb) WHERE t.id = u.id AND t.status = 'waiting'",
                [now, _uuids(t for t, _ in seats), _uuids(tb for _, tb in seats)],
            )
            if cur.rowcount != len(seats):
                raise StaleTicket(f"{len(seats) - cur.rowcount} ticket(s) of the pass were no longer waiting")
        if expired:
            cur.execute(f"UPDATE {_TICKET} t SET status = 'expired', closed_at = %s FROM unnest(%s::uuid[]) AS u(id) "
                        f"WHERE t.id = u.id AND t.status = 'waiting'", [now, _uuids(expired)])
        closed = [t for t, _ in seats] + list(expired)
        if closed:
            cur.execute(f"DELETE FROM {_OPEN} o USING unnest(%s::uuid[]) AS u(id) WHERE o.ticket_id = u.id",
                        [_uuids(closed)])
        cur.execute(f"UPDATE {Pool._meta.db_table} SET last_pass_at = %s WHERE id = %s", [now, pool.pk])


def _write_orm(pool: Pool, rows: list[tuple[str, engine.Table]], expired: list[Any], loaded: Loaded,
               now: datetime) -> None:
    objects = []
    for key, table in rows:
        players, warnings = table_json(table)
        objects.append(Table(id=key, pool=pool, game=pool.game, variant=pool.variant, rated=pool.rated,
                             players=players, warnings=warnings, formed_at=now))
    Table.objects.bulk_create(objects)
    closed = []
    for key, table in rows:
        ids = [loaded.key_of[t.id] for t in table.tickets]
        done = Ticket.objects.filter(pk__in=ids, status=Ticket.Status.WAITING).update(
            status=Ticket.Status.MATCHED, table_id=key, closed_at=now)
        if done != len(ids):
            raise StaleTicket(f"{len(ids) - done} ticket(s) of the pass were no longer waiting")
        closed.extend(ids)
    if expired:
        Ticket.objects.filter(pk__in=expired, status=Ticket.Status.WAITING).update(
            status=Ticket.Status.EXPIRED, closed_at=now)
        closed.extend(expired)
    if closed:
        OpenSeat.objects.filter(ticket_id__in=closed).delete()
    Pool.objects.filter(pk=pool.pk).update(last_pass_at=now)


def _deliveries(rows: list[tuple[str, engine.Table]], loaded: Loaded, now: datetime) -> list[Any]:
    """A push per (table, game server with a callback) among the servers whose tickets sit at the table."""
    servers = {loaded.server_of[t.id] for _, table in rows for t in table.tickets}
    urls = dict(ServerCallback.objects.filter(server_id__in=servers, enabled=True).values_list("server_id", "url"))
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
