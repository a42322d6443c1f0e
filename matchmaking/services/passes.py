"""Passes: a pool's tickets formed into tables (``pool_run``), and beat's pass over every pool with tickets waiting.

A pass (``pool_run``) is the heart: under the pool's row lock it loads the waiting tickets in one query, lets
the pure engine form tables, and writes the tables, the matched and expired tickets and the pushes in one
transaction. The lock makes "a ticket is matched at most once" hold with any number of matchmaker processes;
the conditional ticket update (``status = 'waiting'``, row count checked) makes it hold even if a writer ever
forgets the lock. Pushes are handed to the workers after the commit (``tables_push``), never inside it.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from arena.games import get_game
from infra.gc_pause import gc_paused
from matchmaking import engine, metrics, store
from matchmaking.models import OpenSeat, Pool
from matchmaking.services.pushes import deliveries_overdue, pushes_due
from matchmaking.sizes import pool_sizes

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PassResult:
    pool_id: int
    waiting: int
    tables: int
    matched: int
    expired: int
    seconds: float
    # The parts: lock and load, the engine, the writes and the commit.
    load_seconds: float = 0.0
    engine_seconds: float = 0.0
    write_seconds: float = 0.0


def pool_run(*, pool_id: int, now: datetime | None = None, wait: bool = False) -> PassResult | None:
    """One pass over one pool; None when another process holds the pool (its pass covers this moment).

    ``wait`` blocks on the lock instead (tests and the embedded mode, where a pass must happen before a read).
    """
    started = time.perf_counter()
    with transaction.atomic():
        locked = Pool.objects.select_for_update(skip_locked=not wait).filter(pk=pool_id).first()
        if locked is None:
            return None
        moment = now or timezone.now()
        rules = get_game(locked.title)
        sizes = pool_sizes(rules, locked.variant)
        with gc_paused():  # once for the pass: load, engine and writes (infra/gc_pause.py)
            loaded = store.pool_load(pool=locked)
            loaded_at = time.perf_counter()
            clock = moment.timestamp()
            tables = engine.match(
                loaded.tickets, clock, recommended=sizes.recommended, game_min=sizes.low, game_max=sizes.high
            )
            expired = [t.id for t in engine.expired(loaded.tickets, clock)]
            matched_at = time.perf_counter()
            written = store.pass_write(pool=locked, loaded=loaded, tables=tables, expired=expired, now=moment)
        pushes_due(written.deliveries)
    done = time.perf_counter()
    metrics.PASS_SECONDS.observe(done - started)
    if tables:
        metrics.TABLES.inc(len(tables))
        for table in tables:
            for ticket in table.tickets:
                metrics.WAIT_SECONDS.observe(max(clock - ticket.queued_at, 0.0))
    result = PassResult(
        pool_id,
        len(loaded.tickets),
        len(tables),
        sum(len(t.tickets) for t in tables),
        len(expired),
        done - started,
        loaded_at - started,
        matched_at - loaded_at,
        done - matched_at,
    )
    if tables or expired:
        log.info(
            "pool %s: %d waiting, %d tables, %d expired in %.3f s (load %.3f, engine %.3f, write %.3f)",
            pool_id,
            result.waiting,
            result.tables,
            result.expired,
            result.seconds,
            result.load_seconds,
            result.engine_seconds,
            result.write_seconds,
        )
    return result


def pools_run_due(*, now: datetime | None = None) -> list[PassResult]:
    """A pass over every pool with tickets waiting (the beat task's work), then pushes whose retry is overdue."""
    results = []
    pool_ids = OpenSeat.objects.values_list("pool_id", flat=True).distinct().order_by("pool_id")
    for pool_id in list(pool_ids):
        result = pool_run(pool_id=pool_id, now=now)
        if result is not None:
            results.append(result)
    pushes_due(deliveries_overdue(now=now))
    return results
