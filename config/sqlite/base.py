"""Django's SQLite backend, which creates the database file's folder (``ARENA_VAR_DIR``) when it connects.

Settings never create directories when imported (docs/security.md): a process that only reads its settings (a
worker on PostgreSQL, ``check --deploy``) leaves the disk as it found it, and the embedded mode still needs no
set-up step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db.backends.sqlite3 import base


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        database = str(conn_params.get("database", ""))
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        return super().get_new_connection(conn_params)
