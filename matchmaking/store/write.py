"""A pass's writes: the tables formed, the matched and expired tickets closed and their open seats freed, the pool
stamped, in one statement on PostgreSQL (a JSON document and arrays), the ORM with the same meaning elsewhere; then
the pushes owed to the game servers, handed to the caller to send after the commit."""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from django.db import connection
from django.db.models import Case, UUIDField, Value, When

from infra.db import pg_cursor
from matchmaking import engine, events
from matchmaking.ids import uuid7_texts
from matchmaking.models import Delivery, OpenSeat, Pool, ServerCallback, Table, Ticket
from matchmaking.store.load import Loaded

_TICKET = Ticket._meta.db_table
_OPEN = OpenSeat._meta.db_table
_TABLE = Table._meta.db_table


@dataclass
class PassWritten:
    deliveries: list[Any] = field(default_factory=list)


def table_json(table: engine.Table) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
    """A formed table's players (seating order) and warnings, as stored and shown. Tuples, not lists: orjson and
    the JSON field write them as arrays, and a pass of 2,500 tables copied a list per table and per warning."""
    warnings = table.warnings
    return table.players, [{"code": w.code, "players": w.players} for w in warnings] if warnings else []


def table_standings(players: Sequence[str], loaded: Loaded) -> list[tuple[float, int]]:
    """(elo, rated games) of each player at formation, seating order: what its stakes are computed from."""
    standing_of = loaded.standing_of
    return [standing_of[player] for player in players]


def pass_write(
    *, pool: Pool, loaded: Loaded, tables: Sequence[engine.Table], expired: Sequence[str], now: datetime
) -> PassWritten:
    """Stores the pass inside the caller's transaction; raises if any ticket was no longer waiting."""
    # Table ids as text from the start: they travel as text (JSON, array literals), never as UUID objects. Time
    # ordered (matchmaking/ids.py): tables are never deleted, and a pass's thousands land on the index's last pages.
    rows = list(zip(uuid7_texts(len(tables)), tables, strict=True))
    closed_expired = [loaded.key_of[i] for i in expired]
    if _on_postgres():
        _write_postgres(pool, rows, closed_expired, loaded, now)
    else:
        _write_orm(pool, rows, closed_expired, loaded, now)
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


@functools.cache
def _on_postgres() -> bool:
    """Chosen once per process: the database a process talks to does not change while it runs."""
    vendor: str = connection.vendor
    return vendor == "postgresql"


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


def _write_postgres(
    pool: Pool, rows: list[tuple[str, engine.Table]], expired: list[Any], loaded: Loaded, now: datetime
) -> None:
    # The seated tickets and their tables, as two arrays. On PostgreSQL the load reads every key as text and makes
    # it the ticket's id (store/load.py), so a ticket's id is its key: no lookup in ``key_of`` per seated ticket (at
    # 100,000, a scattered read each).
    seated: list[str] = []
    seated_at: list[str] = []
    for key, table in rows:
        tickets = table.tickets
        seated += [t.id for t in tickets]
        seated_at += [key] * len(tickets)
    doc = [
        {"i": key, "p": players, "w": warnings, "s": table_standings(players, loaded)}
        for key, table in rows
        for players, warnings in [table_json(table)]
    ]
    with pg_cursor(binary=False) as cur:
        cur.execute(
            _WRITE_SQL,
            {
                "pool": pool.pk,
                "title": pool.title,
                "variant": json.dumps(pool.variant),
                "rated": pool.rated,
                # orjson: the document holds text only (ids, handles, warning codes), which it writes ten times faster.
                "now": now,
                "tables": orjson.dumps(doc).decode(),
                "seated": _uuids(seated),
                "seated_at": _uuids(seated_at),
                "expired": _uuids(expired),
            },
        )
        (updated,) = cur.fetchone()
    if updated != len(seated):
        raise StaleTicket(f"{len(seated) - updated} ticket(s) of the pass were no longer waiting")


def _write_orm(
    pool: Pool, rows: list[tuple[str, engine.Table]], expired: list[Any], loaded: Loaded, now: datetime
) -> None:
    objects = []
    for key, table in rows:
        players, warnings = table_json(table)
        objects.append(
            Table(
                id=key,
                pool=pool,
                title=pool.title,
                variant=pool.variant,
                rated=pool.rated,
                players=players,
                warnings=warnings,
                formed_at=now,
                standings=table_standings(players, loaded),
            )
        )
    Table.objects.bulk_create(objects)
    closed = [loaded.key_of[t.id] for _, table in rows for t in table.tickets]
    if closed:
        # One statement for every seated ticket, each given its table by a CASE, as the PostgreSQL statement does
        # from its arrays: a pass costs the same number of queries whatever the number of tables it forms
        # (tests/db/matchmaking/test_query_counts.py).
        table_of = Case(
            *(
                When(pk__in=[loaded.key_of[t.id] for t in table.tickets], then=Value(uuid.UUID(key)))
                for key, table in rows
            ),
            output_field=UUIDField(),
        )
        done = Ticket.objects.filter(pk__in=closed, status=Ticket.Status.WAITING).update(
            status=Ticket.Status.MATCHED, table_id=table_of, closed_at=now
        )
        if done != len(closed):
            raise StaleTicket(f"{len(closed) - done} ticket(s) of the pass were no longer waiting")
    if expired:
        Ticket.objects.filter(pk__in=expired, status=Ticket.Status.WAITING).update(
            status=Ticket.Status.EXPIRED, closed_at=now
        )
        closed.extend(expired)
    if closed:
        OpenSeat.objects.filter(ticket_id__in=closed).delete()
    Pool.objects.filter(pk=pool.pk).update(last_pass_at=now)


def _deliveries(rows: list[tuple[str, engine.Table]], loaded: Loaded, now: datetime) -> list[Any]:
    """A push per (table, game server with a callback) among the servers whose tickets sit at the table."""
    # The pool's servers (a few), not those of every seated ticket (thousands): most have no callback at all.
    servers = set(loaded.server_of.values())
    urls = dict(
        ServerCallback.objects.filter(server_id__in=servers, enabled=True, server__revoked_at__isnull=True).values_list(
            "server_id", "url"
        )
    )
    if not urls:
        return []
    deliveries = []
    for key, table in rows:
        for server_id in sorted({loaded.server_of[t.id] for t in table.tickets} & urls.keys()):
            mine = sorted(
                str(uuid.UUID(str(loaded.key_of[t.id]))) for t in table.tickets if loaded.server_of[t.id] == server_id
            )
            deliveries.append(
                Delivery(
                    server_id=server_id,
                    table_id=key,
                    url=urls[server_id],
                    created_at=now,
                    next_attempt_at=now,
                    tickets=mine,
                )
            )
    Delivery.objects.bulk_create(deliveries)
    return [d.pk for d in deliveries]
