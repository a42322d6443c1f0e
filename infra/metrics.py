"""Prometheus metrics: what every app shares (docs/observability.md lists each metric, its labels and alert).

Two kinds, kept apart on purpose:

- **Counters and histograms** (batches, passes, pushes) are declared by the app that observes them, in its own
  ``metrics`` module, with ``prometheus_client`` directly. With ``PROMETHEUS_MULTIPROC_DIR`` set (production: the
  gunicorn workers and every Celery worker share one directory), prometheus-client writes each process's values to
  files there and the web's ``/metrics`` sums them, so a worker's batch shows in the web's scrape.
- **Gauges of queue depth and age** are never kept in a process: each app registers a scrape function here
  (``scrape``) that reads the database when ``/metrics`` is scraped, so the figure is true whichever worker died.

This module imports no app: apps register into it (layers: docs/architecture.md).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence

from django.conf import settings
from django.db import DatabaseError
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

log = logging.getLogger(__name__)

ScrapeFunction = Callable[[], Iterable[Metric]]
_scrapes: list[ScrapeFunction] = []


def scrape(function: ScrapeFunction) -> ScrapeFunction:
    """Register a function that yields gauges read at scrape time (a decorator; registering twice is a no-op)."""
    if function not in _scrapes:
        _scrapes.append(function)
    return function


def gauge(
    name: str, documentation: str, values: dict[str, float] | float, *, label: str | None = None
) -> GaugeMetricFamily:
    """One gauge family: a single value, or one sample per label value (``label``, e.g. ``title``)."""
    if label is None:
        assert not isinstance(values, dict)
        return GaugeMetricFamily(name, documentation, value=values)
    assert isinstance(values, dict)
    family = GaugeMetricFamily(name, documentation, labels=[label])
    for key, value in sorted(values.items()):
        family.add_metric([key], value)
    return family


def per_title(titles: Sequence[str], found: dict[str, float]) -> dict[str, float]:
    """Every title, 0 where nothing waits: a series that exists only while the queue is non-empty makes
    alerts and graphs lie (no series is not the same as zero)."""
    return {title: float(found.get(title, 0)) for title in titles}


class _ScrapeCollector:
    """Runs every registered scrape function; a database that does not answer drops the gauges of this scrape
    (and says so in ``arena_metrics_database_up``) instead of failing the whole scrape."""

    def collect(self) -> Iterator[Metric]:
        up = 1.0
        for function in list(_scrapes):
            try:
                families = list(function())
            except DatabaseError as error:
                log.warning(
                    "metrics: %s could not read the database: %s", function.__qualname__, error.__class__.__name__
                )
                up = 0.0
                continue
            yield from families
        yield gauge("arena_metrics_database_up", "1 when the scrape-time gauges could read the database.", up)


class _ProcessCollector:
    """This process's own counters and histograms (the embedded mode: one process, no shared directory)."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def exposition() -> bytes:
    """The Prometheus text of one scrape: the processes' counters and histograms, then the scrape-time gauges."""
    registry = CollectorRegistry(auto_describe=False)
    if settings.PROMETHEUS_MULTIPROC_DIR:
        # prometheus-client leaves this constructor unannotated.
        MultiProcessCollector(registry, path=settings.PROMETHEUS_MULTIPROC_DIR)  # type: ignore[no-untyped-call]
    else:
        registry.register(_ProcessCollector())
    registry.register(_ScrapeCollector())
    return generate_latest(registry)
