"""Wall and CPU seconds of a path that runs partly in this process and partly in its PostgreSQL backend.

On a shared two-core machine the wall clock mostly measures waiting for a core; the CPU the path took, this
process's (``time.process_time``) plus that of the backend serving Django's connection (``/proc/<pid>/schedstat``,
so only when the server runs on this machine), is the figure to trust there. The caller sets Django up first.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.db import connection


class Clock:
    """Wall and CPU seconds of the timed path: this process's CPU plus that of the PostgreSQL backend serving
    Django's connection (read from /proc, so only when the server runs here; None otherwise)."""

    def __init__(self) -> None:
        connection.ensure_connection()
        with connection.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            pid = cur.fetchone()[0]
        self.stat: Path | None = Path(f"/proc/{pid}/schedstat")
        if not self.stat.exists():
            self.stat = None

    def backend(self) -> float:
        return int(self.stat.read_text().split()[0]) / 1e9 if self.stat is not None else 0.0

    def now(self) -> tuple[float, float]:
        return time.perf_counter(), time.process_time() + self.backend()


def spent(clock: Clock, since: tuple[float, float], totals: list[float]) -> float:
    """Add the wall and CPU seconds since ``since`` to ``totals`` ([wall, cpu]); returns the wall seconds."""
    wall, cpu = clock.now()
    totals[0] += wall - since[0]
    totals[1] += cpu - since[1]
    return wall - since[0]
