"""The matchmaking rules of ``docs/matchmaking.md`` as one pure function: a pool of tickets and a clock -> tables.

No Django, no database and no clock reads: the caller passes the pool and ``now``, so the Celery beat task, the
embedded mode and the tests run exactly the same pass, and a pass can be replayed by hand.

Why the rules look the way they do:

- **Tolerance grows with waiting.** A fresh ticket only accepts near-equals (150 Elo); every second of waiting
  widens that by 10, up to 800, so nobody waits forever for a perfect opponent. Acceptance is checked in both
  directions: a patient player must not be handed to a fresh one who has not yet agreed to the gap.
- **Fairness to the longest wait.** Tickets are served oldest first, and the served ticket picks its table
  before younger tickets can take its table-mates. A ticket that cannot be seated yet is skipped, not waited
  for, so one unmatched outlier never stalls the whole pool.
- **Size.** Before anyone at a candidate table has waited 30 s only the game's recommended size is formed;
  after that any size every member allows is accepted, and a larger table beats a smaller one. Size is compared
  before TrueSkill quality on purpose: quality falls as players are added, so comparing quality across sizes
  would always favour the smallest table and contradict "larger preferred".
- **Bounded search.** For the served ticket only the ``CANDIDATES`` compatible tickets nearest in Elo are
  considered (found by scanning at most ``SCAN_LIMIT`` tickets outward from its Elo), and tables are the
  combinations of them filling the table. With 8 candidates that is at most C(8, 4) = 70 tables per size,
  whatever the pool size, and branch and bound (see ``search``) tries only a few of them, so a pass is
  linear in the pool: about 0.1 s of CPU per 10,000 fresh tickets. Nearest in Elo is where the most even tables
  almost always are; what the bound can miss is a table made only of players further away, and the served ticket
  is tried again on the next pass.
- **Parties.** A ticket may bring friends (``Ticket.party``): one unit of several seats, matched on its players'
  mean Elo and its own wait, never split. Blocks and same-IP refusals hold between units, never inside one. Its
  total wait counts each of its players (a party of three that waited 10 s has waited 30 player-seconds), and
  the table's TrueSkill quality takes every player as a side of one. A table needs two tickets at least: a party
  that fills a table by itself needs no matchmaker. Same-IP warnings name every player sharing an address,
  friends included, since the other players at the table have a right to know.
"""

from __future__ import annotations

from collections.abc import Sequence

from matchmaking.engine import serving
from matchmaking.engine.rules import (
    ANY_SIZE_AFTER,
    CANDIDATES,
    EXPIRES_AFTER,
    MIN_TABLE,
    QUALITY_DIGITS,
    SCAN_LIMIT,
    TOLERANCE_BASE,
    TOLERANCE_MAX,
    TOLERANCE_PER_SECOND,
    accepts,
    expired,
    is_expired,
    minimum_excludes,
    quality,
    tolerance,
)
from matchmaking.engine.tickets import Member, Table, TableWarning, Ticket, lowest_reputation, strictest_minimum

__all__ = [
    "ANY_SIZE_AFTER",
    "CANDIDATES",
    "EXPIRES_AFTER",
    "MIN_TABLE",
    "QUALITY_DIGITS",
    "SCAN_LIMIT",
    "TOLERANCE_BASE",
    "TOLERANCE_MAX",
    "TOLERANCE_PER_SECOND",
    "Member",
    "Table",
    "TableWarning",
    "Ticket",
    "accepts",
    "expired",
    "is_expired",
    "lowest_reputation",
    "match",
    "minimum_excludes",
    "quality",
    "strictest_minimum",
    "tolerance",
]


def match(pool: Sequence[Ticket], now: float, *, recommended: int, game_min: int, game_max: int) -> list[Table]:
    """One matchmaking pass over one pool; returns the tables formed, in the order they were formed.

    Tickets are served oldest first; each served ticket gets the best valid table among those that include it
    (largest size, then best quality, then longest total wait), and its members leave the pool for the rest of
    the pass, so no ticket is seated twice. Expired tickets are left out (see :func:`expired`). The caller
    stores the tables; doing so exactly once across matchmaker processes is the service's job, not this one's.
    """
    if not game_min <= recommended <= game_max:
        raise ValueError(f"recommended size {recommended} outside the game's {game_min}..{game_max}")
    if len({ticket.id for ticket in pool}) != len(pool):
        raise ValueError("a ticket id appears more than once in the pool")
    live = [ticket for ticket in pool if not is_expired(ticket, now)]
    # The caller pauses the collector around the whole pass (infra/gc_pause.py: load, this, writes), once.
    return serving.run(live, now, recommended, max(game_min, MIN_TABLE), game_max)
