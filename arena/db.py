"""Raw PostgreSQL access for the few hot bulk paths (recording batches, rating batches).

Why: a batch writes thousands of rows, and the ORM builds a model instance and one parameter per value; on
PostgreSQL a binary COPY or one ``INSERT ... SELECT FROM unnest(arrays)`` carries the same rows in one
statement. The cursor is server-binding and binary on Django's own connection, so it runs inside Django's
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
def pg_cursor() -> Iterator[Any]:  # yields a psycopg.Cursor
    """A server-binding, binary psycopg cursor on Django's connection (so inside Django's transaction).

    Driver errors come out as Django's (``django.db.IntegrityError`` ...), as from any ORM query, so callers
    handle one family of exceptions.
    """
    import psycopg

    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.format = psycopg.pq.Format.BINARY
        yield cursor


def columns(rows: Sequence[tuple]) -> list[list]:
    """Rows to one list per column, the shape ``unnest(%b::type[], ...)`` takes."""
    return [list(column) for column in zip(*rows, strict=True)]
