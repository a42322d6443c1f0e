"""Moderation's gauges (docs/observability.md), read from the database at each scrape: the open queues and how
far behind abuse detection is."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import Metric

from arena.games import all_games
from infra import metrics
from moderation.detection import detection_pending
from moderation.models import Flag, Report


@metrics.scrape
def moderation_gauges() -> Iterator[Metric]:
    titles = [game.title for game in all_games()]
    pending = detection_pending()
    yield metrics.gauge(
        "arena_detection_pending_games",
        "Games abuse detection has still to look at.",
        metrics.per_title(titles, {row.title: row.pending for row in pending}),
        label="title",
    )
    yield metrics.gauge(
        "arena_detection_oldest_pending_seconds",
        "Seconds since the oldest game detection has not looked at yet was accepted (new games past the watermark).",
        metrics.per_title(titles, {row.title: row.age.total_seconds() for row in pending}),
        label="title",
    )
    yield metrics.gauge(
        "arena_moderation_open_flags",
        "Open flags (suspected multiple-account abuse).",
        Flag.objects.filter(status=Flag.Status.OPEN).count(),
    )
    yield metrics.gauge(
        "arena_moderation_open_reports",
        "Open reports from players.",
        Report.objects.filter(status=Report.Status.OPEN).count(),
    )
