"""How far behind the rating stages are: per title, the games waiting and how long the oldest has waited.

One reading for every reader: the moderators' dashboard (``backoffice.admin.dashboard``) and the Prometheus
gauges read at each scrape (``ratings.metrics``), so the panel and the alerts never disagree. Each query reads
only the waiting games, small in a healthy system: the Elo stage's through the partial index that holds the
pending ones (``game_pending_by_title``), the TrueSkill stage's as each title's range of ``game_rated_order``
after that stage's ``last_seq``. A long or growing lag is the sign of a stuck or overwhelmed worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import reduce
from operator import or_

from django.db.models import Count, Min, Q, QuerySet
from django.utils import timezone

from arena.models import Game
from ratings.models import RatingStage


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
    waiting = trueskill_waiting()
    return _lag(waiting, now) if waiting is not None else []


def trueskill_waiting() -> QuerySet[Game] | None:
    """The rated games after the TrueSkill stage's ``last_seq`` of their title, in one query (None: no title has
    rated anything). Every title with a rated game has an Elo stage row; a title whose TrueSkill stage never ran
    waits from seq 0."""
    stages: dict[str, dict[str, int]] = {}
    for title, stage, last_seq in RatingStage.objects.values_list("title", "stage", "last_seq"):
        stages.setdefault(title, {})[stage] = last_seq
    after = [
        Q(title=title, rating_seq__gt=seqs.get(RatingStage.Stage.TRUESKILL, 0))
        for title, seqs in sorted(stages.items())
        if RatingStage.Stage.ELO in seqs
    ]
    if not after:
        return None
    return Game.objects.filter(reduce(or_, after), status=Game.Status.RATED)


def oldest_pending_age(*, title: str, now: datetime | None = None) -> float:
    """Seconds the title's oldest game waiting for Elo has waited (0 when none): the lag a rating run logs."""
    oldest = Game.objects.filter(status=Game.Status.PENDING, title=title).aggregate(oldest=Min("accepted_at"))
    if oldest["oldest"] is None:
        return 0.0
    waited: float = ((now or timezone.now()) - oldest["oldest"]).total_seconds()
    return max(waited, 0.0)
