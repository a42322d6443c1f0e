"""Raw PostgreSQL access for the few hot paths (recording games, rating batches).

Why: a batch writes thousands of rows, and the ORM builds a model instance and one parameter per value; on
PostgreSQL a binary COPY, one ``INSERT ... SELECT FROM unnest(arrays)`` or one JSON document carries the same
rows in one statement. The cursor is server-binding on Django's own connection, so it runs inside Django's
transaction (Django's default client-side binding would render every array as a quoted literal, which costs
more than the write itself). Callers keep an ORM path for SQLite, the embedded mode, with the same meaning.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.db import connection


def postgres() -> bool:
    return connection.vendor == "postgresql"


@contextmanager
def pg_cursor(*, binary: bool = True) -> Iterator[Any]:  # yields a psycopg.Cursor
    """A server-binding psycopg cursor on Django's connection (so inside Django's transaction).

    Binary by default (arrays and numbers travel without text conversion); ``binary=False`` for statements
    fed by one JSON document, which the server parses as text anyway.

    Driver errors come out as Django's (``django.db.IntegrityError`` ...), as from any ORM query, so callers
    handle one family of exceptions.
    """
    import psycopg

    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        if binary:
            cursor.format = psycopg.pq.Format.BINARY
        yield cursor


def fetch_one(sql: str, params: Sequence[Any]) -> tuple | None:
    """One row of a hand-written query that runs on every request: on PostgreSQL through a server-binding
    cursor, so the connection prepares it once and later runs skip parsing and planning."""
    if postgres():
        with pg_cursor(binary=False) as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def columns(rows: Sequence[tuple]) -> list[list]:
    """Rows to one list per column, the shape ``unnest(%b::type[], ...)`` takes."""
    return [list(column) for column in zip(*rows, strict=True)]
