"""The rating economy's reads (docs/observability.md, ``arena_rating_active_median``): the median rating of each
title's active players, read from the Rating rows when asked (a scrape), nothing stored.

Active means a rated game in the title within ``ACTIVE_DAYS`` (the leaderboards' window, docs/api.md): the players
whose ratings still move. PostgreSQL computes each median in one grouped query (``percentile_cont``); another
database gets the active ratings and ``ratings.ledger.median``, the same definition (the mean of the two middle
ratings for an even count).
"""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from ratings import ledger
from ratings.models import Rating

# The leaderboards' activity window (leaderboards/board.py ACTIVE_DAYS); ratings sit below leaderboards, so the
# number is restated here rather than imported.
ACTIVE_DAYS = 90


def active_medians(*, now: datetime | None = None) -> dict[str, float]:
    """title -> median Elo of its active players; a title without active players is absent. One query."""
    cutoff = (now or timezone.now()) - timedelta(days=ACTIVE_DAYS)
    active = Rating.objects.filter(last_game_at__gt=cutoff)
    if connection.vendor == "postgresql":
        sql, params = active.values_list("title", "elo").query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT title, percentile_cont(0.5) WITHIN GROUP (ORDER BY elo) "
                           f"FROM ({sql}) AS active GROUP BY title", params)
            return {title: float(value) for title, value in cursor.fetchall()}
    by_title: dict[str, list[float]] = defaultdict(list)
    for title, elo in active.values_list("title", "elo"):
        by_title[title].append(elo)
    return {title: ledger.median(values) for title, values in by_title.items()}  # type: ignore[misc]
