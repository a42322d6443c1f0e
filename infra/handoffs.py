"""The one hand-off from a service to its own app's workers (``HandOff``, ``hand_off``).

The service declares what it needs done and hands it off after its commit; its app's tasks module, which imports
the service anyway, says which task does it (``@hand_off_object.done_by``). So the import runs one way, tasks to
services, and no service imports a task module (``tests/pure/test_no_service_imports_a_task.py``), with no trip
through the core's announcements, which are for facts between apps (docs/architecture.md#announcements-and-hand-offs).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)


class HandOff:
    """Work a service has its own app's workers do: declared beside the service, done by what the app's tasks
    module binds with ``done_by`` (queueing its task), handed over by ``hand_off``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._worker: Callable[..., None] | None = None
        _hand_offs.append(self)

    def __repr__(self) -> str:
        return f"<HandOff {self.name}>"

    def done_by(self, worker: Callable[..., None]) -> Callable[..., None]:
        """Binds the worker (a decorator for the tasks module); a second, different worker is a wiring bug."""
        if self._worker is not None and self._worker is not worker:
            raise RuntimeError(f"{self.name} is done by {self._worker.__qualname__} already")
        self._worker = worker
        return worker

    @property
    def worker(self) -> Callable[..., None] | None:
        return self._worker


_hand_offs: list[HandOff] = []


def hand_offs() -> list[HandOff]:
    """Every hand-off declared so far (for the test that each is bound, and for operators reading the wiring)."""
    return list(_hand_offs)


def hand_off(work: HandOff, *args: Any, at_once: bool = False) -> None:
    """Have ``work`` done with ``args`` once the current transaction commits (at once outside a transaction), so
    no worker reads a row before its commit and a rollback hands nothing over.

    ``at_once=True`` hands it over now: for a need no write makes true (a reader saw the Redis board gone), which
    would otherwise wait on whatever transaction the reader happens to run in. A worker that fails is logged, not
    raised (``ANNOUNCEMENTS_RAISE`` raises it, for tests): the caller's transaction is committed and each piece of
    work has its beat sweep. An unbound hand-off raises at once: its app's tasks module was never imported."""
    worker = work.worker
    if worker is None:
        raise RuntimeError(f"nothing does {work.name}: its app's tasks module binds it (AppConfig.ready imports it)")
    if at_once:
        _run(work, worker, args)
    else:
        transaction.on_commit(lambda: _run(work, worker, args))


def _run(work: HandOff, worker: Callable[..., None], args: tuple[Any, ...]) -> None:
    try:
        worker(*args)
    except Exception:
        if settings.ANNOUNCEMENTS_RAISE:
            raise
        log.exception("%s failed on %r", work.name, args)
