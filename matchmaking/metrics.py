"""Matchmaking's metrics (docs/observability.md): passes, tables and waits observed by the pass, push attempts
by outcome, and the waiting tickets and pending pushes read from the database at each scrape."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count
from prometheus_client import Counter, Histogram
from prometheus_client.core import Metric

from arena.games import all_games
from infra import metrics
from matchmaking.models import Delivery, OpenSeat

PASS_SECONDS = Histogram(
    "arena_matchmaking_pass_seconds",
    "Duration of one pool's pass (lock, load, engine, writes), seconds.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0),
)
TABLES = Counter("arena_matchmaking_tables", "Tables formed by passes.")
WAIT_SECONDS = Histogram(
    "arena_matchmaking_wait_seconds",
    "How long each ticket seated at a table had waited, seconds.",
    buckets=(1, 2, 5, 10, 20, 30, 45, 60, 120, 300, 600),
)
# delivered: the game server answered 2xx; failed: no 2xx, another attempt is due; given_up: no 2xx on the last
# allowed attempt (MATCHMAKING_PUSH_ATTEMPTS), the delivery is failed.
PUSH_OUTCOMES = ("delivered", "failed", "given_up")
PUSH_ATTEMPTS = Counter(
    "arena_push_attempts", "Push attempts of formed tables to game servers, by outcome.", ["outcome"]
)
for _outcome in PUSH_OUTCOMES:
    PUSH_ATTEMPTS.labels(outcome=_outcome)  # every outcome exists at 0 from the start


@metrics.scrape
def queue_gauges() -> Iterator[Metric]:
    titles = [game.title for game in all_games()]
    waiting = dict(OpenSeat.objects.values_list("title").annotate(n=Count("ticket", distinct=True)).order_by())
    yield metrics.gauge(
        "arena_matchmaking_waiting_tickets",
        "Tickets waiting in a pool, by title.",
        metrics.per_title(titles, waiting),
        label="title",
    )
    yield metrics.gauge(
        "arena_push_pending",
        "Pushes of formed tables not delivered yet (first attempt or retry due).",
        Delivery.objects.filter(status=Delivery.Status.PENDING).count(),
    )
