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
order, each linked (by its rank among them) to the next below and above, in arrays made by C loops. Seated
tickets are not unlinked (a seated ticket would otherwise leave up to 15 bands); a walk that meets one follows its
link on and shortens the links it passed (``skip``).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import MutableSequence, Sequence
from itertools import compress

# Floors and caps: the minimums players ask cluster on a few round figures, and each band costs an O(pool) build.
MAX_LEVELS = 4


# A band's links, by rank among its members: the member below (or above) each, -1 (or the count) for none.
Links = MutableSequence[int]
# A band: its members (places in Elo order, ascending) and its links below and above.
Band = tuple[Sequence[int], Links, Links]


class Bands:
    """The bands of one pass, built on demand: (floor, cap) -> its members in Elo order and their links."""

    def __init__(self, rep_low: Sequence[float], rep_min: Sequence[float], waiting: bytearray):
        asked = Counter(m for m in rep_min if m > -math.inf)
        self.levels = sorted(m for m, _ in asked.most_common(MAX_LEVELS))
        self.asked = sorted(asked)
        self.rep_low, self.rep_min, self.waiting = rep_low, rep_min, waiting
        self.built: dict[tuple[float, float], Band] = {}
        self.masks: dict[tuple[str, float], int] = {}

    def entry(self, served: int, minimum: float, reputation: float) -> tuple[Band, int, int] | None:
        """The narrowest band holding every ticket that meets ``minimum`` and whose own minimum ``reputation``
        meets, and the ranks in it of the nearest waiting members below and above ``served``; None when that band
        is every ticket (the waiting list itself)."""
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
        end = len(members)
        at = bisect_left(members, served)
        below = at - 1
        if at < end and members[at] == served:
            at += 1
        above = at
        waiting = self.waiting
        if below >= 0 and not waiting[members[below]]:
            below = skip(down, below, members, waiting)
        if above < end and not waiting[members[above]]:
            above = skip(up, above, members, waiting)
        return band, below, above

    def _build(self, floor: float, cap: float) -> Band:
        """The band's members among the tickets waiting now, and their links: masks of bits and C loops only, so
        a band costs a fraction of a millisecond at 10,000 tickets."""
        count = len(self.waiting)
        chosen = int.from_bytes(self.waiting, "little")
        if floor > -math.inf:
            chosen &= self._mask("floor", floor)
        if cap < math.inf:
            chosen &= self._mask("cap", cap)
        members = list(compress(range(count), chosen.to_bytes(count, "little")))
        size = len(members)
        return members, array("q", range(-1, size - 1)), array("q", range(1, size + 1))

    def _mask(self, kind: str, level: float) -> int:
        """A byte per ticket, as one integer: its least reputation reaches ``level`` (floor), its minimum is at
        most ``level`` (cap)."""
        mask = self.masks.get((kind, level))
        if mask is None:
            values, test = (self.rep_low, level.__le__) if kind == "floor" else (self.rep_min, level.__ge__)
            mask = self.masks[(kind, level)] = int.from_bytes(bytes(map(test, values)), "little")
        return mask


def skip(links: Links, k: int, members: Sequence[int], waiting: bytearray) -> int:
    """The rank of the first waiting member from rank ``k`` on along ``links`` (-1 or the count: none); the links
    passed are shortened to it, so no walk passes the same seated tickets twice. Two walks along the same links,
    the second pointing each at the end found by the first: no list of the ranks passed is kept (a pass with
    minimums passes some 90,000 seated members at 10,000 tickets, and the list cost a third of it)."""
    end = len(members)
    start = k
    while 0 <= k < end and not waiting[members[k]]:
        k = links[k]
    while start != k:
        links[start], start = k, links[start]
    return k
