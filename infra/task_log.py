"""One log line per task run (``task_finished``): the task, its state, its duration and what the task reports.

Celery's signals frame every run, in a worker and in the embedded mode alike; a task adds its own figures
(``task_facts``: batch size, games rated, lag, ...) and they are written on that one line. Runs nest when the
embedded mode executes a task inside another, so the facts are kept per run, on a stack.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from typing import Any

import structlog

log = structlog.get_logger("arena.tasks")

# Beat's heartbeat runs every second and has nothing to say: its line is at debug level.
QUIET = frozenset({"arena.tasks.beat_tick"})
_runs: ContextVar[tuple[dict[str, Any], ...]] = ContextVar("arena_task_runs", default=())


def task_facts(**facts: Any) -> None:
    """Add figures to the running task's line (ignored outside a task run)."""
    runs = _runs.get()
    if runs:
        runs[-1].update(facts)


def run_started(task_id: str | None = None, task: Any = None, **_: Any) -> None:
    _runs.set((*_runs.get(), {"_started": time.perf_counter()}))


def run_finished(task_id: str | None = None, task: Any = None, state: str | None = None, **_: Any) -> None:
    runs = _runs.get()
    if not runs:
        return
    facts, rest = runs[-1], runs[:-1]
    _runs.set(rest)
    started = facts.pop("_started")
    name = getattr(task, "name", str(task))
    log.log(
        10 if name in QUIET else 20,
        "task_finished",
        task=name,
        task_id=task_id,
        state=state,
        duration_ms=round((time.perf_counter() - started) * 1000, 1),
        **facts,
    )
