"""One pause of CPython's cyclic garbage collector, for the hot loops that allocate many objects and no cycles.

Two loops use it: a rating batch's Elo plan (``ratings.elo_batch``, ``ratings.rebuild``) and a matchmaking pass
(``matchmaking.services.pool_run``: load, engine, writes). Each allocates a few objects per seat or ticket and frees
none until it ends, so CPython would otherwise run collection after collection over a heap that only grows
(measured: a tenth to a third of the work), to find nothing: neither creates reference cycles
(``tests/pure/matchmaking/test_engine.py`` checks the pass). Not for TrueSkill: trueskill's factor graphs are
cycles, and it gains nothing. Framework-free, so pure rules may use it too.
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
