"""Pairing one Swiss round of multi-seat tables: the rules of docs/tournaments.md#pairing-a-round, as one pure function.

No Django, no database, no clock: the caller passes the players in ranking order (the standings before the round,
``tournaments/standings.py``) with what the pairing needs to know of their past (points, former table-mates, first
seats, byes), and gets the tables in board order, each with its seat order and the reasons it was formed so.

Why the pairing works the way it does (docs/tournaments.md#pairing-a-round):

- **Table sizes first** (``table_plan``): the tournament's size, and tables one seat smaller (within the title's
  range) before anyone gets a bye; byes only when no mix of the two sizes seats everyone.
- **Byes** go to the lowest-ranked players who have had the fewest byes (none, in any tournament of fewer byes than
  players), so nobody gets a second bye while someone has had none.
- **The order of what matters**: fewest repeats (a pair of players sharing a table again), then seat balance (each
  table holds a player among those with the fewest first seats, as far as they go round), then score groups (the
  sum over tables of the points spread at the table: leaders with leaders). Compared in that order, as a tuple.
- **Exact when small, fast when large.** Up to ``EXACT_LIMIT`` players, branch and bound over every partition
  finds the best tuple (the property tests hold it to a brute-force judge). Above, a greedy pass fills the boards
  top-down in ranking order, seating the next player who has not met anyone at the table within ``WINDOW`` places,
  then swaps between tables remove the repeats it was forced into: linear in the players (10,000 players at
  4-seat tables in well under a second, ``bench/pairing_bench.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

EXACT_LIMIT = 12  # players; up to here every partition is searched (branch and bound)
BUDGET_LIMIT = 40  # players; up to here a budgeted search refines the greedy pairing when it kept repeats
SEARCH_BUDGET = 20_000  # nodes of that budgeted search (about a second at most here)
WINDOW = 64  # how far down the ranking the greedy pass looks for a player new to a table
REPAIR_RADIUS = 8  # tables either side a repeat's swap partner is first looked for


class PairingError(ValueError):
    """The players cannot be seated at all (fewer than one table's worth)."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """One player as the pairing sees them, in ranking order (the caller's list order is the ranking)."""

    player: int
    points: int = 0
    mates: frozenset[int] = frozenset()  # every player they have shared a table with (voided games included)
    first_seats: int = 0
    byes: int = 0


@dataclass(frozen=True, slots=True)
class TablePlan:
    """How many tables of which size, and how many byes, for one round's count of players."""

    sizes: tuple[int, ...]  # board order: the full tables first
    byes: int


@dataclass(frozen=True, slots=True)
class PairedTable:
    """One table: its players in seat order (seat 1 plays first) and why it is so."""

    board: int
    seats: tuple[int, ...]
    repeats: tuple[tuple[int, int], ...]  # pairs who had shared a table before, each once
    points: tuple[int, ...]  # the seats' points before the round, in seat order
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pairing:
    """A round: its tables in board order, its byes, and the figures the explanation quotes."""

    tables: tuple[PairedTable, ...]
    byes: tuple[int, ...]
    repeats: int
    seat_shortfall: int
    spread: int
    exact: bool  # True when the search proved the (repeats, seat_shortfall, spread) tuple the best there is
    notes: tuple[str, ...] = field(default=())


def table_plan(players: int, size: int, low: int) -> TablePlan:
    """The tables for ``players``: as many of ``size`` as possible with tables of ``size - 1`` (when the title's range
    allows it, ``size - 1 >= low``) taking up the rest; byes only when no such mix seats everyone, as few as can be.

    docs/tournaments.md#table-sizes-and-byes: 13 players at 4 seats (range 3-5) are 4+3+3+3, no bye; 9 players at a
    two-seat title are four tables and a bye.
    """
    if size < 2 or low > size:
        raise ValueError(f"table size {size} outside its range (lowest {low})")
    smaller_allowed = size - 1 >= max(low, 2)
    for byes in range(players + 1):
        seated = players - byes
        if seated < size and not (smaller_allowed and seated >= size - 1 and seated > 0):
            continue
        small = (-seated) % size if smaller_allowed else (0 if seated % size == 0 else None)
        if small is None or small * (size - 1) > seated:
            continue
        full = (seated - small * (size - 1)) // size
        return TablePlan(sizes=(size,) * full + (size - 1,) * small, byes=byes)
    raise PairingError(f"{players} players cannot fill one table of {size}")


def bye_players(entrants: Sequence[Entrant], count: int) -> list[int]:
    """Who sits out: ``count`` players, the lowest-ranked among those with the fewest byes so far (a second bye only
    when everyone has had one)."""
    if count == 0:
        return []
    ranked = sorted(range(len(entrants)), key=lambda i: (entrants[i].byes, -i))
    return [entrants[i].player for i in ranked[:count]]


def repeats_of(group: Iterable[int], mates: Mapping[int, frozenset[int]]) -> list[tuple[int, int]]:
    """The pairs of ``group`` who have shared a table before."""
    members = list(group)
    return [(a, b) for i, a in enumerate(members) for b in members[i + 1 :] if b in mates.get(a, frozenset())]


def seat_order(table: Sequence[Entrant]) -> list[Entrant]:
    """Seat 1 goes to the player with the fewest first seats (the higher-ranked on a tie); the others follow in the
    same order, so the next-fewest sit next (docs/tournaments.md#seat-order)."""
    return sorted(table, key=lambda e: e.first_seats)  # stable: ranking order within equal counts


def _short_targets(entrants: Sequence[Entrant], tables: int) -> tuple[frozenset[int], int]:
    """The players with the fewest first seats (indices), and how many tables must hold one of them so that nobody's
    count of first seats runs two ahead of another's: ``min(len(low), tables)``."""
    fewest = min(e.first_seats for e in entrants)
    low = frozenset(i for i, e in enumerate(entrants) if e.first_seats == fewest)
    if len(low) == len(entrants):
        return low, 0  # everyone level: any seat 1 keeps them within one
    return low, min(len(low), tables)


@dataclass(slots=True)
class _Cost:
    repeats: int
    shortfall: int
    spread: int

    def key(self) -> tuple[int, int, int]:
        return self.repeats, self.shortfall, self.spread


def _cost(groups: Sequence[Sequence[int]], entrants: Sequence[Entrant], low: frozenset[int], need: int) -> _Cost:
    repeats = 0
    covered = 0
    spread = 0
    for group in groups:
        for i, a in enumerate(group):
            mates = entrants[a].mates
            for b in group[i + 1 :]:
                if entrants[b].player in mates:
                    repeats += 1
        if any(i in low for i in group):
            covered += 1
        points = [entrants[i].points for i in group]
        spread += max(points) - min(points)
    return _Cost(repeats, max(0, need - covered), spread)


class _Search:
    """Branch and bound over every partition of the players into tables of ``sizes`` (as a multiset), one table at a
    time: each table's first seat is the best-ranked player left (so no partition is visited twice), ``_choose``
    completes it, ``_extend`` opens the next. A class only so the search's state is shared by the two steps."""

    def __init__(
        self,
        entrants: Sequence[Entrant],
        sizes: Sequence[int],
        low: frozenset[int],
        need: int,
        start: list[list[int]] | None,
        budget: int | None,
    ) -> None:
        n = len(entrants)
        self.n, self.low, self.need, self.budget = n, low, need, budget
        self.met = [[entrants[b].player in entrants[a].mates for b in range(n)] for a in range(n)]
        self.points = [e.points for e in entrants]
        self.remaining_sizes: dict[int, int] = {}
        for s in sizes:
            self.remaining_sizes[s] = self.remaining_sizes.get(s, 0) + 1
        self.best = start
        self.best_key = _cost(start, entrants, low, need).key() if start else (n * n, n, 10**9)
        self.nodes = 0
        self.placed = [False] * n
        self.groups: list[list[int]] = []
        self.complete = True

    def run(self, tables: int) -> tuple[list[list[int]], bool]:
        self._extend(0, 0, 0, tables, len(self.low))
        assert self.best is not None
        return self.best, self.complete

    def _bound(self, repeats: int, covered: int, spread: int, tables_left: int, low_left: int) -> tuple[int, int, int]:
        """The best any completion can reach: repeats and spread only grow, and at most ``min(tables_left,
        low_left)`` more tables can get a player short of first seats."""
        reachable = covered + min(tables_left, low_left)
        return repeats, max(0, self.need - reachable), spread

    def _choose(self, state: tuple[int, int, int, int, int], size: int, group: list[int], after: int, rep: int) -> None:
        """Complete the table of ``group`` (its first seat the best-ranked player left) with players after ``after``;
        ``rep`` counts its repeats so far, the one figure worth pruning on while the table fills."""
        repeats, covered, spread, tables_left, low_left = state
        if len(group) == size:
            pts = [self.points[i] for i in group]
            low_used = sum(1 for i in group if i in self.low)
            self.groups.append(list(group))
            self._extend(
                repeats + rep,
                covered + (low_used > 0),
                spread + max(pts) - min(pts),
                tables_left - 1,
                low_left - low_used,
            )
            self.groups.pop()
            return
        if repeats + rep > self.best_key[0]:
            return
        placed, met = self.placed, self.met
        for j in range(after, self.n):
            if placed[j]:
                continue
            extra = sum(1 for g in group if met[g][j])
            placed[j] = True
            group.append(j)
            self._choose(state, size, group, j + 1, rep + extra)
            group.pop()
            placed[j] = False

    def _extend(self, repeats: int, covered: int, spread: int, tables_left: int, low_left: int) -> None:
        """Open the next table at the best-ranked player left (or record a complete partition that beats the best)."""
        if self.budget is not None and self.nodes >= self.budget:
            self.complete = False
            return
        self.nodes += 1
        if self._bound(repeats, covered, spread, tables_left, low_left) >= self.best_key:
            return
        try:
            head = self.placed.index(False)
        except ValueError:
            self.best_key = (repeats, max(0, self.need - covered), spread)
            self.best = [list(g) for g in self.groups]
            return
        self.placed[head] = True
        state = (repeats, covered, spread, tables_left, low_left)
        for size in sorted(self.remaining_sizes, reverse=True):
            if self.remaining_sizes[size] == 0:
                continue
            self.remaining_sizes[size] -= 1
            self._choose(state, size, [head], head + 1, 0)
            self.remaining_sizes[size] += 1
        self.placed[head] = False


def _exact(
    entrants: Sequence[Entrant],
    sizes: Sequence[int],
    low: frozenset[int],
    need: int,
    start: list[list[int]] | None,
    budget: int | None,
) -> tuple[list[list[int]], bool]:
    """The lowest (repeats, seat_shortfall, spread) tuple over every partition, the first found in ranking order on a
    tie. ``start`` seeds the bound; ``budget`` (nodes) stops the search early, reported by the second value (False:
    not proven best)."""
    return _Search(entrants, sizes, low, need, start, budget).run(len(sizes))


def _greedy(entrants: Sequence[Entrant], sizes: Sequence[int], low: frozenset[int], need: int) -> list[list[int]]:
    """Top-down in ranking order: each table takes the best-ranked player left, then the next players (within
    ``WINDOW`` places) who have met nobody at it; its last seat goes, while tables still need one, to a player with
    the fewest first seats. When nobody in the window fits, the next player sits anyway (repaired afterwards)."""
    n = len(entrants)
    placed = [False] * n
    groups: list[list[int]] = []
    head = 0
    tables_needing = need
    for size in sizes:
        while placed[head]:
            head += 1
        group = [head]
        placed[head] = True
        forbidden = set(entrants[head].mates)
        has_low = head in low
        while len(group) < size:
            pick = -1
            fallback = -1
            low_pick = -1
            want_low = not has_low and tables_needing > 0 and len(group) == size - 1
            seen = 0
            j = head + 1
            while j < n and seen < WINDOW:
                if not placed[j]:
                    seen += 1
                    if fallback < 0:
                        fallback = j
                    if entrants[j].player not in forbidden:
                        if pick < 0:
                            pick = j
                            if not want_low:
                                break
                        if want_low and j in low:
                            low_pick = j
                            break
                j += 1
            choice = low_pick if low_pick >= 0 else (pick if pick >= 0 else fallback)
            placed[choice] = True
            group.append(choice)
            forbidden.update(entrants[choice].mates)
            has_low = has_low or choice in low
        if has_low:
            tables_needing -= 1
        groups.append(group)
    return groups


def _repair(groups: list[list[int]], entrants: Sequence[Entrant]) -> None:
    """Swap players between tables while a swap lowers the count of repeats: for each table keeping a repeat, one of
    the pair changes places with a player of a nearby table (then of any table) whose move adds none."""
    players = [e.player for e in entrants]
    mates = [e.mates for e in entrants]

    def clashes(i: int, group: Sequence[int], without: int) -> int:
        return sum(1 for g in group if g != without and g != i and players[g] in mates[i])

    for _ in range(3):
        improved = False
        for t, group in enumerate(groups):
            for a in list(group):
                if clashes(a, group, a) == 0:
                    continue
                order = sorted(range(len(groups)), key=lambda u: (abs(u - t) > REPAIR_RADIUS, abs(u - t)))
                done = False
                for u in order:
                    if u == t:
                        continue
                    other = groups[u]
                    for b in other:
                        before = clashes(a, group, a) + clashes(b, other, b)
                        after = clashes(b, group, a) + clashes(a, other, b)
                        if after < before:
                            group[group.index(a)] = b
                            other[other.index(b)] = a
                            done = improved = True
                            break
                    if done:
                        break
        if not improved:
            return


def _balance(groups: list[list[int]], entrants: Sequence[Entrant], low: frozenset[int], need: int) -> None:
    """Give a table without a fewest-first-seats player one from a nearby table holding two or more (else the nearest
    anywhere), by a swap that adds no repeat (equal points first, so the score groups stay as they were where they
    can)."""
    covered = sum(1 for g in groups if any(i in low for i in g))
    if covered >= need:
        return
    players = [e.player for e in entrants]
    mates = [e.mates for e in entrants]

    def fits(i: int, group: Sequence[int], leaving: int) -> bool:
        return not any(g != leaving and players[g] in mates[i] for g in group)

    for t, group in enumerate(groups):
        if covered >= need:
            return
        if any(i in low for i in group):
            continue
        nearby = sorted(
            (u for u in range(max(0, t - REPAIR_RADIUS), min(len(groups), t + REPAIR_RADIUS + 1)) if u != t),
            key=lambda u: abs(u - t),
        )
        options = [
            (entrants[a].points != entrants[b].points, abs(u - t), a, b, u)
            for u in nearby
            if sum(1 for i in groups[u] if i in low) >= 2
            for b in groups[u]
            if b in low
            for a in group
            if fits(b, group, a) and fits(a, groups[u], b)
        ]
        if not options:  # none close by: the nearest table anywhere with a short player to spare
            for u in sorted(range(len(groups)), key=lambda u: abs(u - t)):
                if u == t or sum(1 for i in groups[u] if i in low) < 2:
                    continue
                options = [
                    (True, abs(u - t), a, b, u)
                    for b in groups[u]
                    if b in low
                    for a in group
                    if fits(b, group, a) and fits(a, groups[u], b)
                ]
                if options:
                    break
        if options:
            _, _, a, b, u = min(options)
            group[group.index(a)] = b
            groups[u][groups[u].index(b)] = a
            covered += 1


def pair_round(entrants: Sequence[Entrant], size: int, low: int) -> Pairing:
    """Pair one round: ``entrants`` in ranking order (best first), tables of ``size`` (``low`` is the title's
    smallest table). Tables come out in board order (the best-ranked player's table is board 1)."""
    if len(set(e.player for e in entrants)) != len(entrants):
        raise PairingError("a player is listed twice")
    plan = table_plan(len(entrants), size, low)
    byes = bye_players(entrants, plan.byes)
    bye_set = set(byes)
    seated = [e for e in entrants if e.player not in bye_set]
    low_set, need = _short_targets(seated, len(plan.sizes))
    notes: list[str] = []
    if len(seated) <= EXACT_LIMIT:
        groups, exact = _exact(seated, plan.sizes, low_set, need, None, None)
    else:
        groups = _greedy(seated, plan.sizes, low_set, need)
        _repair(groups, seated)
        _balance(groups, seated, low_set, need)
        exact = False
        if len(seated) <= BUDGET_LIMIT and _cost(groups, seated, low_set, need).repeats:
            groups, exact = _exact(seated, plan.sizes, low_set, need, groups, SEARCH_BUDGET)
    cost = _cost(groups, seated, low_set, need)
    if cost.repeats:
        notes.append("repeat-free pairing impossible" if exact else "repeat-free pairing not found by the search")
    mates = {e.player: e.mates for e in seated}
    tables: list[PairedTable] = []
    for board, group in enumerate(sorted((sorted(g) for g in groups), key=lambda g: g[0]), start=1):
        members = seat_order([seated[i] for i in group])
        ids = tuple(e.player for e in members)
        repeated = tuple(repeats_of(ids, mates))
        pts = tuple(e.points for e in members)
        reasons = [
            f"score group {max(pts)}-{min(pts)} points" if max(pts) != min(pts) else f"score group {pts[0]} points",
            ("repeats forced: " + ", ".join(f"{a}-{b}" for a, b in repeated))
            if repeated
            else "no repeated table-mates",
            f"seat 1: player {ids[0]}, {members[0].first_seats} first seats before (fewest at the table)",
        ]
        tables.append(PairedTable(board, ids, repeated, pts, tuple(reasons)))
    return Pairing(tuple(tables), tuple(byes), cost.repeats, cost.shortfall, cost.spread, exact, tuple(notes))
