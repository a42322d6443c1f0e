"""From a tournament's records to the next round's pairing input, and a standings line to its explanation: pure.

The glue between ``tournaments/standings.py`` and ``tournaments/pairing.py`` (docs/tournaments.md#pairing-a-round):
the ranking is the standings before the round (round 1: start Elo, then player id), former table-mates come from
every table played (voided ones included: played pairings stand), first seats from the seat order, byes from the
byes. Kept apart so the service that will store tournaments and the tests build the next round the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from tournaments.pairing import Entrant
from tournaments.standings import ByeRecord, Line, TableRecord


def next_entrants(lines: Sequence[Line], tables: Sequence[TableRecord], byes: Sequence[ByeRecord]) -> list[Entrant]:
    """The players still in the standings, in ranking order, with their points, table-mates, first seats and byes."""
    mates: dict[int, set[int]] = {line.player: set() for line in lines}
    firsts = dict.fromkeys(mates, 0)
    bye_count = dict.fromkeys(mates, 0)
    for record in tables:
        if record.seats and record.seats[0] in firsts:
            firsts[record.seats[0]] += 1
        for p in record.seats:
            if p in mates:
                mates[p].update(q for q in record.seats if q != p)
    for bye in byes:
        if bye.player in bye_count:
            bye_count[bye.player] += 1
    return [
        Entrant(line.player, line.points, frozenset(mates[line.player]), firsts[line.player], bye_count[line.player])
        for line in lines
    ]


def first_round_entrants(start_elo: Mapping[int, float]) -> list[Entrant]:
    """Round 1: seeded by Elo at the start (higher first), then player id."""
    return [Entrant(p) for p in sorted(start_elo, key=lambda p: (-start_elo[p], p))]


def _number(value: Fraction | float | int) -> float | int:
    return float(round(value, 2)) if isinstance(value, Fraction) else value


def explain(line: Line) -> dict[str, Any]:
    """One player's standing as the explain endpoint shows it: each figure and the terms it adds up from
    (docs/tournaments.md#tie-breaks). The average Elo is shown as its sum and count, so the division is checkable."""
    elo_sum = sum(e for _, _, e in line.elo_terms)
    return {
        "player": line.player,
        "rank": line.rank,
        "points": {
            "total": line.points,
            "terms": [{"round": r, "from": what, "points": pts} for r, what, pts in line.point_terms],
        },
        "buchholz": {
            "total": line.buchholz,
            "terms": [{"round": r, "table_mate": q, "points": pts} for r, q, pts in line.buchholz_terms],
        },
        "opponents_elo": {
            "average": _number(line.opponents_elo),
            "sum": elo_sum,
            "count": len(line.elo_terms),
            "terms": [{"round": r, "table_mate": q, "start_elo": e} for r, q, e in line.elo_terms],
        },
        "head_to_head": {
            "total": line.head_to_head,
            "terms": [{"round": r, "table_mate": q, "score": s} for r, q, s in line.head_to_head_terms],
        },
        "start_elo": line.start_elo,
    }
