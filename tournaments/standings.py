"""A tournament's standings from its recorded tables: the rules of docs/tournaments.md#points-and-standings, pure.

No Django: the caller passes the players with their Elo at the start, the tables with the places their games gave
(or ``None`` when the round's deadline passed without a result), the byes and the voided players, and gets the
ranking with every figure behind it. Two ways to the same answer, on purpose:

- ``standings`` recomputes everything from the records (what the API shows, what a replay gives);
- ``Tally`` applies one record at a time, as the tournament lives it (a game recorded, a bye, a void).

The hypothesis test in ``tests/pure/tournaments/test_standings_replay.py`` holds the two equal after every event.

Why the rules are these (docs/tournaments.md):

- **Points by place**: ``2·(n−place)`` at a table of ``n`` seats (4 seats: 6, 4, 2, 0), tied places share their
  mean, which is always a whole number (``2n − (a+b)`` for places ``a..b``). A bye scores the best result of a full
  table, ``2·(table_size−1)``. A table without a result by the deadline scores 0 for every seat (no-shows lose).
- **Tie-breaks**, in order: Buchholz (the sum of every table-mate's points, once per table shared), the table-mates'
  average Elo at the start, head-to-head among the players still level (one point per tied table-mate finished
  ahead of, minus one per tied table-mate finished behind), then the start Elo and the player id (seeding).
- **Voids**: a voided player leaves the standings, and every table they sat at is scored again as if they had not
  been there (the others' places close up, ``n`` shrinks). The tables themselves stand (nobody is re-paired).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class TableRecord:
    """One played table: its seats (seat order) and the places their game gave, aligned; ``places`` None: no result
    by the deadline."""

    round: int
    table: int
    seats: tuple[int, ...]
    places: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class ByeRecord:
    round: int
    player: int


@dataclass(frozen=True, slots=True)
class Line:
    """One player's line of the standings, with the terms each figure adds up from."""

    rank: int
    player: int
    points: int
    buchholz: int
    opponents_elo: Fraction  # the table-mates' average Elo at the start (0 without any)
    head_to_head: int
    start_elo: float
    point_terms: tuple[tuple[int, str, int], ...]  # (round, "table <id>" or "bye", points)
    buchholz_terms: tuple[tuple[int, int, int], ...]  # (round, table-mate, their points)
    elo_terms: tuple[tuple[int, int, float], ...]  # (round, table-mate, their start Elo)
    head_to_head_terms: tuple[tuple[int, int, int], ...]  # (round, tied table-mate, +1 / -1 / 0)

    def key(self) -> tuple[Fraction | float, ...]:
        return (-self.points, -self.buchholz, -self.opponents_elo, -self.head_to_head, -self.start_elo, self.player)


def place_points(places: Sequence[int]) -> list[int]:
    """Points for one table's places (1 = best, equal numbers tie): ``2·(n−place)``, tied places share their mean.

    docs/tournaments.md#points-by-place: places (1, 2, 2, 4) at 4 seats score 6, 3, 3, 0.
    """
    n = len(places)
    order = sorted(places)
    result = []
    for place in places:
        first = order.index(place) + 1  # the competition place: 1 + how many finished ahead
        last = first + order.count(place) - 1
        result.append(2 * n - (first + last))
    return result


def bye_points(table_size: int) -> int:
    """A bye scores the best result at a full table: ``2·(table_size−1)`` (6 at 4 seats)."""
    return 2 * (table_size - 1)


def table_points(record: TableRecord, removed: frozenset[int] | set[int]) -> dict[int, int]:
    """Each remaining seat's points at one table, voided players taken out first (their places close up)."""
    kept = [i for i, p in enumerate(record.seats) if p not in removed]
    if record.places is None:
        return {record.seats[i]: 0 for i in kept}
    points = place_points([record.places[i] for i in kept])
    return {record.seats[i]: pts for i, pts in zip(kept, points, strict=True)}


def _head_to_head(
    player: int, tied: set[int], tables: Iterable[TableRecord], removed: frozenset[int] | set[int]
) -> list[tuple[int, int, int]]:
    terms = []
    for record in tables:
        if player not in record.seats or record.places is None:
            continue
        mine = record.places[record.seats.index(player)]
        for other, place in zip(record.seats, record.places, strict=True):
            if other != player and other in tied and other not in removed:
                terms.append((record.round, other, (place > mine) - (place < mine)))
    return terms


def rank_lines(
    players: Mapping[int, float],
    tables: Sequence[TableRecord],
    points: Mapping[int, int],
    point_terms: Mapping[int, list[tuple[int, str, int]]],
    removed: frozenset[int] | set[int],
) -> list[Line]:
    """The ranking from each player's points (shared by both ways to the standings): the tie-breaks are worked
    out here, from the tables, since every one of them depends on other players' current points."""
    mates: dict[int, list[tuple[int, int]]] = {p: [] for p in players if p not in removed}
    for record in tables:
        kept = [p for p in record.seats if p not in removed]
        for p in kept:
            mates[p].extend((record.round, q) for q in kept if q != p)
    partial = {}
    for p in mates:
        b_terms = tuple((r, q, points[q]) for r, q in mates[p])
        e_terms = tuple((r, q, players[q]) for r, q in mates[p])
        elo = Fraction(sum(Fraction(e) for _, _, e in e_terms)) / len(e_terms) if e_terms else Fraction(0)
        partial[p] = (points[p], sum(t[2] for t in b_terms), elo, b_terms, e_terms)
    groups: dict[tuple[int, int, Fraction], set[int]] = {}
    for p, (pts, bh, elo, _, _) in partial.items():
        groups.setdefault((pts, bh, elo), set()).add(p)
    lines = []
    for p, (pts, bh, elo, b_terms, e_terms) in partial.items():
        tied = groups[(pts, bh, elo)] - {p}
        h_terms = tuple(_head_to_head(p, tied, tables, removed)) if tied else ()
        lines.append(
            Line(
                0,
                p,
                pts,
                bh,
                elo,
                sum(t[2] for t in h_terms),
                players[p],
                tuple(point_terms[p]),
                b_terms,
                e_terms,
                h_terms,
            )
        )
    lines.sort(key=Line.key)
    return [_with_rank(line, rank) for rank, line in enumerate(lines, start=1)]


def _with_rank(line: Line, rank: int) -> Line:
    return Line(rank, *[getattr(line, f) for f in Line.__slots__[1:]])


def standings(
    players: Mapping[int, float],
    tables: Sequence[TableRecord],
    byes: Sequence[ByeRecord],
    table_size: int,
    removed: Iterable[int] = (),
) -> list[Line]:
    """The standings recomputed from the records: ``players`` maps each player to their Elo at the start."""
    gone = frozenset(removed)
    points = {p: 0 for p in players if p not in gone}
    terms: dict[int, list[tuple[int, str, int]]] = {p: [] for p in points}
    events: list[tuple[int, int, str, int]] = []
    for record in tables:
        for p, pts in table_points(record, gone).items():
            events.append((record.round, p, f"table {record.table}", pts))
    for bye in byes:
        if bye.player not in gone:
            events.append((bye.round, bye.player, "bye", bye_points(table_size)))
    for rnd, p, what, pts in sorted(events):
        points[p] += pts
        terms[p].append((rnd, what, pts))
    return rank_lines(players, tables, points, terms, gone)


@dataclass
class Tally:
    """The standings kept up as the tournament goes: each record changes only the points it touches."""

    players: Mapping[int, float]
    table_size: int
    tables: list[TableRecord] = field(default_factory=list)
    removed: set[int] = field(default_factory=set)
    points: dict[int, int] = field(default_factory=dict)
    terms: dict[int, list[tuple[int, str, int]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.points = {p: 0 for p in self.players}
        self.terms = {p: [] for p in self.players}

    def _add(self, rnd: int, player: int, what: str, pts: int) -> None:
        self.points[player] += pts
        self.terms[player].append((rnd, what, pts))
        self.terms[player].sort()

    def record(self, record: TableRecord) -> None:
        """A table's result (or its deadline without one)."""
        self.tables.append(record)
        for p, pts in table_points(record, self.removed).items():
            self._add(record.round, p, f"table {record.table}", pts)

    def bye(self, bye: ByeRecord) -> None:
        if bye.player not in self.removed:
            self._add(bye.round, bye.player, "bye", bye_points(self.table_size))

    def void(self, player: int) -> list[tuple[int, int, int]]:
        """Take a voided player out: each table they sat at is scored again without them. Returns the changes as
        (player, points before, points after), the list the tournament shows."""
        if player in self.removed:
            return []
        before = dict(self.points)
        touched = [r for r in self.tables if player in r.seats]
        old = [table_points(r, self.removed) for r in touched]
        self.removed.add(player)
        del self.points[player]
        del self.terms[player]
        for record, was in zip(touched, old, strict=True):
            now = table_points(record, self.removed)
            label = f"table {record.table}"
            for p, pts in now.items():
                self.points[p] += pts - was[p]
                self.terms[p] = sorted(
                    (r, w, pts if (r, w) == (record.round, label) else v) for r, w, v in self.terms[p]
                )
        return [(p, before[p], self.points[p]) for p in sorted(self.points) if before[p] != self.points[p]]

    def standings(self) -> list[Line]:
        return rank_lines(self.players, self.tables, self.points, self.terms, self.removed)
