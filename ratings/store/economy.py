"""The rating economy's storage (docs/ratings.md, "Where rating points come from"; docs/observability.md,
``arena_rating_active_median``): the ledger's additive write, and the active players' median rating of each title,
read from the Rating rows when asked (a scrape or a snapshot).

Active means a rated game in the title within ``ACTIVE_DAYS`` (the leaderboards' window, docs/api.md): the players
whose ratings still move. PostgreSQL computes each median in one grouped query (``percentile_cont``); another
database gets the active ratings and ``ratings.ledger.median``, the same definition (the mean of the two middle
ratings for an even count).
"""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import date, datetime, timedelta

from django.db import connection
from django.utils import timezone

from ratings import ledger
from ratings.models import LedgerDay, Rating

# The leaderboards' activity window (leaderboards/board.py ACTIVE_DAYS); ratings sit below leaderboards, so the
# number is restated here rather than imported.
ACTIVE_DAYS = 90


_LEDGER = LedgerDay._meta.db_table
# One statement for every source of a transaction: a new (title, day, source) row, or the amounts added to the
# row already there. Both PostgreSQL and SQLite speak ON CONFLICT ... DO UPDATE; the sum happens in the database,
# so two writers of the same title and day (a batch and a reset, each under the title's stage lock) never lose
# each other's points.
_LEDGER_ADD = (
    f"INSERT INTO {_LEDGER} (title, day, source, created, destroyed) VALUES (%s, %s, %s, %s, %s) "
    f"ON CONFLICT (title, day, source) DO UPDATE SET created = {_LEDGER}.created + excluded.created, "
    f"destroyed = {_LEDGER}.destroyed + excluded.destroyed"
)


def ledger_add(*, title: str, day: date, flows: ledger.Flows) -> None:
    """Add one transaction's ``flows`` to the title's ledger of ``day`` (no statement when nothing moved)."""
    rows = [(title, day, source, created, destroyed) for source, (created, destroyed) in sorted(flows.items())]
    if rows:
        with connection.cursor() as cursor:
            cursor.executemany(_LEDGER_ADD, rows)


def active_stats(*, title: str, now: datetime | None = None) -> tuple[int, float | None, float | None]:
    """(count, mean, median) of the title's active players' Elo; one query (two on a database without
    ``percentile_cont``, which gets the ratings and takes ``ratings.ledger.median``)."""
    cutoff = (now or timezone.now()) - timedelta(days=ACTIVE_DAYS)
    active = Rating.objects.filter(title=title, last_game_at__gt=cutoff)
    if connection.vendor == "postgresql":
        sql, params = active.values_list("elo").query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT count(*), avg(elo), percentile_cont(0.5) WITHIN GROUP (ORDER BY elo) FROM ({sql}) AS active",
                params,
            )
            count, mean, middle = cursor.fetchone()
            return int(count), None if mean is None else float(mean), None if middle is None else float(middle)
    values = list(active.values_list("elo", flat=True))
    return len(values), (math.fsum(values) / len(values)) if values else None, ledger.median(values)


def active_medians(*, now: datetime | None = None) -> dict[str, float]:
    """title -> median Elo of its active players; a title without active players is absent. One query."""
    cutoff = (now or timezone.now()) - timedelta(days=ACTIVE_DAYS)
    active = Rating.objects.filter(last_game_at__gt=cutoff)
    if connection.vendor == "postgresql":
        sql, params = active.values_list("title", "elo").query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT title, percentile_cont(0.5) WITHIN GROUP (ORDER BY elo) FROM ({sql}) AS active GROUP BY title",
                params,
            )
            return {title: float(value) for title, value in cursor.fetchall()}
    by_title: dict[str, list[float]] = defaultdict(list)
    for title, elo in active.values_list("title", "elo"):
        by_title[title].append(elo)
    return {title: ledger.median(values) for title, values in by_title.items()}  # type: ignore[misc]
