"""Database functions the ORM lacks."""

from __future__ import annotations

from typing import Any

from django.db.models import FloatField, Func


class Epoch(Func):  # type: ignore[misc]  # Django has no type stubs: its classes are Any
    """A datetime column as seconds since 1970 (float), computed by the database: a rebuild reads a million of
    them, and parsing each into a datetime would take longer than the copy itself."""

    output_field = FloatField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list[Any]]:
        sql: tuple[str, list[Any]] = self.as_sql(
            compiler, connection, template="EXTRACT(EPOCH FROM %(expressions)s)::float8", **extra
        )
        return sql

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list[Any]]:
        # Django stores UTC text; 2440587.5 is the Julian day of 1970-01-01T00:00Z.
        sql: tuple[str, list[Any]] = self.as_sql(
            compiler, connection, template="((julianday(%(expressions)s) - 2440587.5) * 86400.0)", **extra
        )
        return sql
