"""Migration operations for a live site (docs/operations.md, "Deploy order"): never a blocking lock on a hot table.

``CREATE INDEX`` takes a lock that stops every write to the table for as long as the build runs (minutes on
millions of rows); ``CREATE INDEX CONCURRENTLY`` lets writes go on. Django's ``AddIndexConcurrently`` is
PostgreSQL-only; this one does the same there and a plain ``AddIndex`` elsewhere (SQLite, the embedded mode), so
one migration serves both. A migration using it must say ``atomic = False``.
"""

from __future__ import annotations

from django.contrib.postgres.operations import AddIndexConcurrently, RemoveIndexConcurrently
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations import AddIndex, RemoveIndex
from django.db.migrations.state import ProjectState


class AddIndexOnline(AddIndexConcurrently):  # type: ignore[misc]  # Django has no type stubs: its classes are Any
    """``CREATE INDEX CONCURRENTLY`` on PostgreSQL, a plain ``CREATE INDEX`` on other databases."""

    def database_forwards(
        self, app_label: str, schema_editor: BaseDatabaseSchemaEditor, from_state: ProjectState, to_state: ProjectState
    ) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
        else:
            AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(
        self, app_label: str, schema_editor: BaseDatabaseSchemaEditor, from_state: ProjectState, to_state: ProjectState
    ) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
        else:
            AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)


class RemoveIndexOnline(RemoveIndexConcurrently):  # type: ignore[misc]  # Django has no type stubs: its classes are Any
    """``DROP INDEX CONCURRENTLY`` on PostgreSQL, a plain ``DROP INDEX`` on other databases."""

    def database_forwards(
        self, app_label: str, schema_editor: BaseDatabaseSchemaEditor, from_state: ProjectState, to_state: ProjectState
    ) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
        else:
            RemoveIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(
        self, app_label: str, schema_editor: BaseDatabaseSchemaEditor, from_state: ProjectState, to_state: ProjectState
    ) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
        else:
            RemoveIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)
