"""The pass itself: tickets served oldest first, each given the best table that includes it, largest size first.

The rules and the order of the search are those of the package's docstring: the same tables come out as from
trying every combination, only fewer combinations are tried (``candidates`` bounds who is considered, ``search``
which groups of them are tried).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.same_ip import shared_addresses
from matchmaking.engine.candidates import all_fit, fits, nearest
from matchmaking.engine.rules import ANY_SIZE_AFTER
from matchmaking.engine.search import best_group
from matchmaking.engine.state import PassState
from matchmaking.engine.tickets import Table, TableWarning, Ticket


def run(live: Sequence[Ticket], now: float, recommended: int, game_low: int, game_high: int) -> list[Table]:
    """The tables formed from the ``live`` (unexpired) tickets, in the order they were formed."""
    state = PassState(live, now, recommended, game_low, game_high)
    tables = []
    waiting, unit, rank = state.waiting, state.unit, state.serve_rank
    remove = state.remove
    for served in state.serve_order:
        if not waiting[served]:
            continue
        chosen = best_table(state, served)
        if chosen is not None:
            for i in chosen:
                remove(i)
            tables.append(_table([unit(i) for i in sorted(chosen, key=rank.__getitem__)]))
    return tables


def best_table(state: PassState, served: int) -> tuple[int, ...] | None:
    """The best valid table including ``served`` (as positions, ``served`` first), or None yet."""
    least, most, seats = state.least, state.most, state.seats
    low = max(state.game_low, least[served])
    high = min(state.game_high, most[served])
    if low > high:
        return None
    cands = nearest(state, served, low, high)
    if not cands:
        return None
    # Only ``served`` is known to fit with every candidate; the candidates must also fit with each other:
    # bit j of fitting[k] says candidate k fits with candidate j (None: every two fit).
    fitting = None if all_fit(state, cands) else fits(state, cands)
    wait = state.wait
    oldest_wait = wait[served]
    room = 0
    for c in cands:
        if wait[c] > oldest_wait:
            oldest_wait = wait[c]
        room += seats[c]
    # The order a table search tries candidates in: largest shrink factor first, then longest wait.
    top_shrink = state.top_shrink
    keys = [(-top_shrink[c], -wait[c]) for c in cands]
    trying = sorted(range(len(cands)), key=keys.__getitem__)
    recommended = state.recommended
    for size in range(min(high, seats[served] + room), low - 1, -1):
        if size != recommended and oldest_wait < ANY_SIZE_AFTER:
            continue  # no table of this size can be valid yet: skip its search
        need = size - seats[served]
        seatable = [k for k in trying if least[cands[k]] <= size <= most[cands[k]] and seats[cands[k]] <= need]
        chosen = best_group(state, served, cands, seatable, fitting, size, need) if seatable else None
        if chosen is not None:
            # Larger preferred: a valid table of this size beats every smaller one, whatever their quality.
            return (served, *(cands[k] for k in chosen))
    return None


def _table(ordered: Sequence[Ticket]) -> Table:
    """A table of ``ordered`` (longest waiting first), with a warning per IP hash its players share."""
    if not any(t.party for t in ordered) and len({t.ip_hash for t in ordered}) == len(ordered):
        return Table(tuple(ordered))  # nobody shares an address: no warning
    shared = shared_addresses(
        (player, ip)
        for ticket in ordered
        for player, ip in ((ticket.player, ticket.ip_hash), *((m.player, m.ip_hash) for m in ticket.party))
    )
    warnings = tuple(TableWarning("same_ip", players) for players in shared)
    return Table(tuple(ordered), warnings)
