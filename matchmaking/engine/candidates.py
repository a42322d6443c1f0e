"""Who the served ticket considers: the ``CANDIDATES`` waiting tickets nearest in Elo that could sit with it, and
which of those could also sit with each other.

Nearest in Elo is where the most even tables almost always are, and bounding the candidates bounds the tables a
search tries per size (at most C(8, size - 1)), whatever the pool size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matchmaking.engine.bands import Links, skip
from matchmaking.engine.rules import CANDIDATES, SCAN_LIMIT
from matchmaking.engine.state import PassState


def nearest(state: PassState, served: int, low: int, high: int) -> list[int]:
    """Up to CANDIDATES waiting tickets nearest in Elo that could sit with ``served`` at a size it allows,
    examining at most SCAN_LIMIT outward from its Elo (equal gaps: the one below first). A ticket that a minimum
    reputation (its own or the served ticket's) keeps apart is passed over, not examined: the scan walks the band
    (``bands``) of the tickets no minimum keeps apart, and checks each it visits."""
    elo, least, most, seats, waiting = state.elo, state.least, state.most, state.seats, state.waiting
    centre, within = elo[served], state.tol[served]
    room = high - seats[served]
    tol, plain, player_no = state.tol, state.plain, state.player_no
    plain_served, me = plain[served], player_no[served]
    rule, rep_low, rep_min = state.reputation_rule, state.rep_low, state.rep_min
    low_served, min_served = rep_low[served], rep_min[served]
    entry = None if state.bands is None else state.bands.entry(served, min_served, low_served)
    # The walk is over ranks in a list of members: the waiting list itself (every place, kept exact as tickets
    # are seated) or a band (``bands``: its seated members are passed over as they are met).
    members: Sequence[int]
    before: Links
    after: Links
    if entry is None:
        members, before, after = range(state.end), state.before, state.after
        below, above = before[served], after[served]
    else:
        (members, before, after), below, above = entry
    end = len(members)
    inf = math.inf
    found: list[int] = []
    add = found.append
    left = CANDIDATES
    scanned = 0
    gap_below = centre - elo[members[below]] if below >= 0 else inf
    gap_above = elo[members[above]] - centre if above < end else inf
    while left and scanned < SCAN_LIMIT:
        if gap_below <= gap_above:
            if gap_below > within:
                break
            at, below = below, before[below]
            if below >= 0 and not waiting[members[below]]:
                below = before[at] = skip(before, below, members, waiting)
            gap_below = centre - elo[members[below]] if below >= 0 else inf
        else:
            if gap_above > within:
                break
            at, above = above, after[above]
            if above < end and not waiting[members[above]]:
                above = after[at] = skip(after, above, members, waiting)
            gap_above = elo[members[above]] - centre if above < end else inf
        other = members[at]
        if rule and (min_served > rep_low[other] or rep_min[other] > low_served):
            continue  # a minimum reputation keeps the two apart: passed over, not examined
        scanned += 1
        if least[other] <= high and most[other] >= low and seats[other] <= room:
            if plain_served and plain[other]:
                # Two lone players who block nobody and refuse nothing: mutual acceptance is all (the
                # served ticket accepts ``other``, being within its tolerance).
                gap = centre - elo[other]
                if (gap if gap >= 0 else -gap) <= tol[other] and player_no[other] != me:
                    add(other)
                    left -= 1
            elif state.pair_allowed(served, other):
                add(other)
                left -= 1
    return found


def all_fit(state: PassState, cands: list[int]) -> bool:
    """Whether every two candidates fit, known without comparing each pair: lone players who block and refuse
    nothing, all different, and all within the smallest tolerance among them (the usual dense pool)."""
    plain, elo, tol = state.plain, state.elo, state.tol
    first = cands[0]
    lowest = highest = elo[first]
    narrowest = tol[first]
    for c in cands:
        if not plain[c]:
            return False
        e = elo[c]
        if e < lowest:
            lowest = e
        elif e > highest:
            highest = e
        if tol[c] < narrowest:
            narrowest = tol[c]
    if highest - lowest > narrowest:
        return False
    if state.reputation_rule:
        rep_low, rep_min = state.rep_low, state.rep_min
        if max(rep_min[c] for c in cands) > min(rep_low[c] for c in cands):
            return False
    player_no = state.player_no
    return len({player_no[c] for c in cands}) == len(cands)


def fits(state: PassState, cands: list[int]) -> list[int]:
    """Which candidates fit with each other: bit j of ``fits[k]`` says candidate k fits with candidate j."""
    m = len(cands)
    found = [0] * m
    elo, tol, plain, player_no = state.elo, state.tol, state.plain, state.player_no
    rule, rep_low, rep_min = state.reputation_rule, state.rep_low, state.rep_min
    for i in range(m):
        a = cands[i]
        elo_a, tol_a, plain_a = elo[a], tol[a], plain[a]
        for j in range(i + 1, m):
            b = cands[j]
            gap = elo_a - elo[b]
            if gap < 0:
                gap = -gap
            if gap > tol_a or gap > tol[b]:
                continue
            if rule and (rep_min[a] > rep_low[b] or rep_min[b] > rep_low[a]):
                continue
            if (player_no[a] != player_no[b]) if plain_a and plain[b] else state.pair_allowed(a, b):
                found[i] |= 1 << j
                found[j] |= 1 << i
    return found
