"""One pause of CPython's cyclic garbage collector, for the hot loops that allocate many objects and no cycles.

Its users: an Elo batch (``ratings.elo_batch``: read, plan, writes and reputation), the rebuild's plan
(``ratings.rebuild``) and a matchmaking pass (``matchmaking.services.pool_run``: load, engine, writes). Each
allocates a few objects per seat or ticket and frees none until it ends, so CPython would otherwise run collection
after collection over a heap that only grows (measured: a tenth to a third of the work), to find next to nothing:
the plans and the pass create no reference cycles (``tests/pure/matchmaking/test_engine.py`` checks the pass), and
a whole Elo batch of 2,000 games leaves about 200 objects in cycles (the ORM's and the driver's), which the first
collection after it frees. Not for TrueSkill: trueskill's factor graphs are cycles, and it gains nothing.
Framework-free, so pure rules may use it too.

The web workers take the other road (``startup_heap_freeze``): their requests allocate little each, but what a
worker loaded at start (Django, the apps, every view) is most of its heap, and a full collection walks all of it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector is re-enabled after it only if it was on before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def startup_heap_freeze() -> None:
    """Move every object alive now into the collector's permanent generation, which no collection walks.

    For a server process once its code is loaded (``config/wsgi.py``): those objects live until it exits, so
    walking them is pure cost, and full collections came several times per batch request. Garbage already
    unreachable is collected first, so nothing that should go is frozen with it; a frozen object that becomes
    garbage later is still freed by reference counting, and only a cycle among frozen objects would stay."""
    gc.collect()
    gc.freeze()
