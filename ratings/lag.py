"""How far behind the rating stages are: per title, the games waiting and how long the oldest has waited.

One reading for every reader: the moderators' dashboard (``backoffice.admin.dashboard``) and the Prometheus
gauges read at each scrape (``ratings.metrics``), so the panel and the alerts never disagree. Each query is a
scan of a partial index that holds only the waiting games (``game_pending_by_title``, ``game_trueskill_todo``),
small in a healthy system; a long or growing lag is the sign of a stuck or overwhelmed worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Min, QuerySet
from django.utils import timezone

from arena.models import Game


@dataclass(frozen=True)
class Lag:
    """A title's waiting games: how many, the oldest one's acceptance time, and its wait at ``now``."""

    title: str
    pending: int
    oldest: datetime
    age: timedelta


def _lag(games: QuerySet, now: datetime | None) -> list[Lag]:
    now = now or timezone.now()
    rows = games.values("title").annotate(pending=Count("id"), oldest=Min("accepted_at")).order_by("title")
    return [Lag(row["title"], row["pending"], row["oldest"], max(now - row["oldest"], timedelta(0))) for row in rows]


def rating_lag(*, now: datetime | None = None) -> list[Lag]:
    """Titles with games waiting for the Elo stage (only those: a title that is up to date has no row)."""
    return _lag(Game.objects.filter(status=Game.Status.PENDING), now)


def trueskill_lag(*, now: datetime | None = None) -> list[Lag]:
    """Titles with Elo-rated games the TrueSkill stage has not applied yet; the wait counts from acceptance."""
    return _lag(Game.objects.filter(status=Game.Status.RATED, trueskill_done=False), now)


def oldest_pending_age(*, title: str, now: datetime | None = None) -> float:
    """Seconds the title's oldest game waiting for Elo has waited (0 when none): the lag a rating run logs."""
    oldest = Game.objects.filter(status=Game.Status.PENDING, title=title).aggregate(oldest=Min("accepted_at"))
    if oldest["oldest"] is None:
        return 0.0
    waited: float = ((now or timezone.now()) - oldest["oldest"]).total_seconds()
    return max(waited, 0.0)
