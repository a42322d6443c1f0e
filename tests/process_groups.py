"""Stopping the process groups a test started (workers, gunicorn, beat, a whole shape): one way for every test."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterable


def groups_stop(processes: Iterable[subprocess.Popen], sig: int = signal.SIGTERM, grace: float = 30.0) -> None:
    """Signal every group first, then wait for each, and SIGKILL a group that outlives ``grace``: signalling them
    in turn would make the later ones sit through the earlier ones' grace, and a group (not its leader) is what
    a started process leaves behind (a pool's children)."""
    processes = list(processes)
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
    for process in processes:
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
