"""Single elimination for two-seat tables, as pure functions: the rules of docs/tournaments.md#elimination.

Why it works the way it does:

- **Seeded once, at the start**: by start Elo (then player id), the order a Swiss round 1 uses. The bracket has
  ``2^R`` slots (``R = rounds_needed``), the seeds placed so that seed 1 and seed 2 meet only in the final; the
  slots left empty are the byes, and they fall to the top seeds (seed ``s`` faces ``2^R + 1 - s``).
- **A loser is out.** A table's winner is its first place; a tie goes to the higher seed (a bracket needs one
  winner per table). A table without a result by the deadline sends nobody on (no-shows lose): its slot stays
  empty and the next opponent advances without a game (a walkover), as a bye.
- **Voids**: a voided player's slot is emptied from the next round on; the tables they played stand (the players
  they beat stay out).
- **Standings**: a player's points are the rounds they advanced (a table won, a bye or a walkover: 1 each), ranked
  by points then seed; the champion is the one who advanced every round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from tournaments.pairing import PairedTable, Pairing
from tournaments.standings import Line, TableRecord


def rounds_needed(players: int) -> int:
    """Rounds of a bracket for ``players``: ``ceil(log2 players)``, at least 1."""
    return max(1, (players - 1).bit_length())


def bracket_order(size: int) -> list[int]:
    """The seeds (1 best) in slot order for a bracket of ``size`` (a power of two): 8 gives 1, 8, 4, 5, 2, 7, 3, 6,
    so each pair of slots adds up to ``size + 1`` and seeds 1 and 2 can meet only in the final."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def seeding(start_elo: Mapping[int, float]) -> list[int]:
    """Every player who started, best seed first: higher start Elo, then lower player id."""
    return sorted(start_elo, key=lambda p: (-start_elo[p], p))


def table_winner(record: TableRecord, seed: Mapping[int, int]) -> int | None:
    """First place; on a tie the higher seed; nobody without a result (no-shows lose)."""
    if record.places is None:
        return None
    best = min(record.places)
    return min(
        (p for p, place in zip(record.seats, record.places, strict=True) if place == best), key=lambda p: seed[p]
    )


def slots(
    seeds: Sequence[int], tables: Sequence[TableRecord], removed: Iterable[int], rounds: int
) -> list[list[int | None]]:
    """The bracket before round 1, 2, ..., ``rounds + 1``: each a list of slots, a player or None (empty). A pair
    of slots whose table has no record yet (still open) sends nobody on yet."""
    gone = frozenset(removed)
    seed = {p: i + 1 for i, p in enumerate(seeds)}
    by_seed = dict(enumerate(seeds, start=1))
    # Round 1 as seeded, the voided included: the tables they played stand; only their advancing is cut.
    current = [by_seed.get(s) for s in bracket_order(2 ** rounds_needed(len(seeds)))]
    played = {(r.round, frozenset(r.seats)): r for r in tables}
    history = [current]
    for number in range(1, rounds + 1):
        advancing: list[int | None] = []
        for a, b in zip(current[::2], current[1::2], strict=True):
            if a is not None and b is not None:
                record = played.get((number, frozenset((a, b))))
                winner = table_winner(record, seed) if record is not None else None
            else:
                winner = a if a is not None else b
            advancing.append(None if winner in gone else winner)
        current = advancing
        history.append(current)
    return history


def pair(start_elo: Mapping[int, float], tables: Sequence[TableRecord], removed: Iterable[int], number: int) -> Pairing:
    """Round ``number``: a table for each pair of filled slots (seat 1 to the one with fewer first seats so far, the
    higher seed on a tie), a bye for each slot whose pair is empty."""
    seeds = seeding(start_elo)
    seed = {p: i + 1 for i, p in enumerate(seeds)}
    current = slots(seeds, tables, removed, number - 1)[number - 1]
    firsts: dict[int, int] = {}
    for record in tables:
        firsts[record.seats[0]] = firsts.get(record.seats[0], 0) + 1
    paired: list[PairedTable] = []
    byes: list[int] = []
    for a, b in zip(current[::2], current[1::2], strict=True):
        if a is None or b is None:
            byes.extend(p for p in (a, b) if p is not None)  # one filled slot: a bye (round 1) or a walkover
            continue
        seats = tuple(sorted((a, b), key=lambda p: (firsts.get(p, 0), seed[p])))
        reasons = (
            f"bracket: seed {seed[a]} v seed {seed[b]}",
            f"seat 1: fewer first seats ({firsts.get(seats[0], 0)}), the higher seed on a tie",
        )
        paired.append(PairedTable(len(paired) + 1, seats, (), (0, 0), reasons))
    return Pairing(tuple(paired), tuple(byes), 0, 0, 0, True, ("single elimination",))


def standings(
    start_elo: Mapping[int, float], tables: Sequence[TableRecord], removed: Iterable[int], rounds: int
) -> list[Line]:
    """Points = rounds advanced (each with its term: the table won, or the bye), ranked by points then seed."""
    gone = frozenset(removed)
    seeds = seeding(start_elo)
    history = slots(seeds, tables, gone, rounds)
    won = {(r.round, p): r.table for r in tables for p in r.seats}
    terms: dict[int, list[tuple[int, str, int]]] = {p: [] for p in seeds if p not in gone}
    for number in range(1, len(history)):
        for p in history[number]:
            if p is not None and p in terms:
                table = won.get((number, p))
                terms[p].append((number, f"table {table}" if table is not None else "bye", 1))
    order = sorted(terms, key=lambda p: (-len(terms[p]), seeds.index(p)))
    return [
        Line(rank, p, len(terms[p]), 0, Fraction(0), 0, start_elo[p], tuple(terms[p]), (), (), ())
        for rank, p in enumerate(order, start=1)
    ]
