"""Reputation bands: the waiting tickets a minimum reputation does not keep apart from the served one, as their own
lists in Elo order, so that the scan (``candidates.nearest``) passes over the others without visiting them.

Why: a ticket asking 95 % in a pool where most players are below it, or a player at 70 % among tickets asking 75,
used to visit every excluded neighbour to find its 8 candidates (and, once the pool's reputable players were seated,
200 excluded ones to find none): with a third of the tickets asking a minimum that made a pass 1.4x to 1.6x the
plain one (issue 24 §3). The bands are a speed device only: the scan still checks each visited ticket's reputation
exactly, and a ticket kept apart by a minimum is never counted as examined, whether a band skipped it or the check
did (docs/matchmaking.md, "Fairness").

A band is the tickets whose least reputation reaches a floor (the served ticket's minimum, or a lower asked one) and
whose minimum is at most a cap (the served ticket's reputation, or a higher asked one); floors and caps are the
minimums asked in the pool (at most ``MAX_LEVELS``, the most asked, so a pool of many different minimums builds few
bands). A band is built when a served ticket first needs it, from the tickets then waiting: its members in Elo
order, each linked to the next below and above. Seated tickets are not unlinked (a seated ticket would otherwise
leave up to 25 bands); a walk that meets one follows its link on and shortens the links it passed (``skip``).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from itertools import compress

# Floors and caps: the minimums players ask cluster on a few round figures, and each band costs an O(pool) build.
MAX_LEVELS = 4


# A band's links: the member below (or above) each member, -1 (or the end) for none.
Links = dict[int, int]


class Bands:
    """The bands of one pass, built on demand: (floor, cap) -> its members in Elo order and their links."""

    def __init__(self, rep_low: Sequence[float], rep_min: Sequence[float], waiting: bytearray):
        asked = Counter(m for m in rep_min if m > -math.inf)
        self.levels = sorted(m for m, _ in asked.most_common(MAX_LEVELS))
        self.asked = sorted(asked)
        self.rep_low, self.rep_min, self.waiting = rep_low, rep_min, waiting
        self.built: dict[tuple[float, float], tuple[list[int], Links, Links]] = {}
        self.masks: dict[tuple[str, float], int] = {}

    def entry(self, served: int, minimum: float, reputation: float) -> tuple[Links, Links, int, int] | None:
        """The links (below, above) of the narrowest band holding every ticket that meets ``minimum`` and whose own
        minimum ``reputation`` meets, and the nearest waiting members below and above ``served`` in it; None when
        that band is every ticket (the waiting list itself)."""
        levels = self.levels
        # The floor: the highest level at most the minimum (every ticket meeting the minimum reaches it).
        at = bisect_right(levels, minimum)
        floor = levels[at - 1] if at else -math.inf
        # The cap: the lowest level at least the highest minimum asked that the reputation meets (only tickets
        # asking nothing when it meets none).
        met = bisect_right(self.asked, reputation)
        if met == 0:
            cap = -math.inf
        elif met == len(self.asked):
            cap = math.inf
        else:
            at = bisect_left(levels, self.asked[met - 1])
            cap = levels[at] if at < len(levels) else math.inf
        if floor == -math.inf and cap == math.inf:
            return None
        band = self.built.get((floor, cap))
        if band is None:
            band = self.built[(floor, cap)] = self._build(floor, cap)
        members, down, up = band
        end = len(self.waiting)
        at = bisect_left(members, served)
        below = members[at - 1] if at else -1
        if at < len(members) and members[at] == served:
            at += 1
        above = members[at] if at < len(members) else end
        waiting = self.waiting
        if below >= 0 and not waiting[below]:
            below = skip(down, below, waiting, end)
        if above < end and not waiting[above]:
            above = skip(up, above, waiting, end)
        return down, up, below, above

    def _build(self, floor: float, cap: float) -> tuple[list[int], Links, Links]:
        """The band's members among the tickets waiting now, and their links: masks of bits and C loops only, so
        a band costs well under a millisecond at 10,000 tickets."""
        count = len(self.waiting)
        chosen = int.from_bytes(self.waiting, "little")
        if floor > -math.inf:
            chosen &= self._mask("floor", floor)
        if cap < math.inf:
            chosen &= self._mask("cap", cap)
        members = list(compress(range(count), chosen.to_bytes(count, "little")))
        # zip stops at the members: the lists of neighbours have one more (-1 first, the end last).
        down = dict(zip(members, [-1, *members], strict=False))
        up = dict(zip(members, [*members[1:], count], strict=False))
        return members, down, up

    def _mask(self, kind: str, level: float) -> int:
        """A byte per ticket, as one integer: its least reputation reaches ``level`` (floor), its minimum is at
        most ``level`` (cap)."""
        mask = self.masks.get((kind, level))
        if mask is None:
            values, test = (self.rep_low, level.__le__) if kind == "floor" else (self.rep_min, level.__ge__)
            mask = self.masks[(kind, level)] = int.from_bytes(bytes(map(test, values)), "little")
        return mask


def skip(links: Links | list[int], j: int, waiting: bytearray, end: int) -> int:
    """The first waiting ticket from ``j`` on along ``links`` (-1 or ``end``: none); the links passed are shortened
    to it, so no walk passes the same seated tickets twice."""
    passed = []
    while 0 <= j < end and not waiting[j]:
        passed.append(j)
        j = links[j]
    for k in passed:
        links[k] = j
    return j
