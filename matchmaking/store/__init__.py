"""The rows a pass moves, one module per use: the pool loaded in one query (after its keys, on PostgreSQL;
``load``), the tables and ticket statuses written in one statement (``write``), and closed tickets purged past the
retention (``purge``).

Why hand-written SQL: a pass over 100,000 waiting tickets must stay within seconds, and the ORM spends longer
building model instances than the database spends answering. On PostgreSQL the whole write is one statement fed by
one JSON document (the tables) and arrays (``unnest``, the tickets); SQLite (the embedded mode, small pools) takes
the ORM path with the same meaning. Elo and TrueSkill are read from the ratings app's table
(``ratings.models.Rating``), which sits below.
"""

from __future__ import annotations

from matchmaking.store.load import LOAD_SQL_POSTGRES, Loaded, load_params, pool_load
from matchmaking.store.purge import tickets_closed_delete
from matchmaking.store.write import PassWritten, StaleTicket, pass_write, table_json, table_standings

__all__ = [
    "LOAD_SQL_POSTGRES",
    "Loaded",
    "PassWritten",
    "StaleTicket",
    "load_params",
    "pass_write",
    "pool_load",
    "table_json",
    "table_standings",
    "tickets_closed_delete",
]
