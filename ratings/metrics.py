"""The rating stages' metrics (docs/observability.md): batch histograms observed by the Elo stage, and the
``arena_rating_*`` / ``arena_trueskill_*`` lag gauges read from the database at each scrape (``ratings.lag``)."""

from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings
from prometheus_client import Histogram
from prometheus_client.core import GaugeMetricFamily, Metric

from arena.games import all_games
from infra import metrics
from ratings import economy as ledger_reads
from ratings import lag
from ratings.store import economy

BATCH_SECONDS = Histogram(
    "arena_rating_batch_seconds",
    "Duration of one Elo batch (one transaction), seconds.",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
BATCH_GAMES = Histogram(
    "arena_rating_batch_games",
    "Games rated by one Elo batch.",
    buckets=(1, 5, 10, 25, 50, 100, 250, 500, 1000, 2000, 5000),
)


def _gauges(prefix: str, stage: str, rows: list[lag.Lag]) -> Iterator[Metric]:
    titles = [game.title for game in all_games()]
    yield metrics.gauge(
        f"{prefix}_pending_games",
        f"Games waiting for the {stage} stage.",
        metrics.per_title(titles, {row.title: row.pending for row in rows}),
        label="title",
    )
    yield metrics.gauge(
        f"{prefix}_oldest_pending_seconds",
        f"Seconds the oldest game waiting for the {stage} stage has waited since it was accepted.",
        metrics.per_title(titles, {row.title: row.age.total_seconds() for row in rows}),
        label="title",
    )


@metrics.scrape
def lag_gauges() -> Iterator[Metric]:
    yield from _gauges("arena_rating", "Elo", lag.rating_lag())
    yield from _gauges("arena_trueskill", "TrueSkill", lag.trueskill_lag())


@metrics.scrape
def economy_gauges() -> Iterator[Metric]:
    """docs/observability.md: the median rating of each title's active players (its drift is deflation)."""
    yield metrics.gauge(
        "arena_rating_active_median",
        "Median Elo of the players with a rated game in the title within 90 days.",
        economy.active_medians(),
        label="title",
    )


@metrics.scrape
def ledger_gauges() -> Iterator[Metric]:
    """docs/observability.md: the ledger's net points of all time per title and source, and the drift threshold
    the ``ArenaRatingDrift`` rule compares the active median's 30-day move with (one sample per title, so the rule
    matches label for label)."""
    family = GaugeMetricFamily(
        "arena_rating_points_total",
        "Net rating points a source created in a title since "
        "the ledger began (negative: destroyed); read from the stored ledger.",
        labels=["title", "source"],
    )
    for (title, source), net in sorted(ledger_reads.points_by_source().items()):
        family.add_metric([title, source], net)
    yield family
    titles = [game.title for game in all_games()]
    yield metrics.gauge(
        "arena_rating_drift_threshold_points",
        "Points a title's active median may move in 30 days before ArenaRatingDrift fires (RATING_DRIFT_POINTS).",
        {title: float(settings.RATING_DRIFT_POINTS) for title in titles},
        label="title",
    )
