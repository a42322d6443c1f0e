"""The best group of candidates filling the seats left at one table size: best quality (to QUALITY_DIGITS), then
longest total wait, then the first in combinations order (its members nearest in Elo), as if every combination had
been tried.

Branch and bound, depth first with running sums: candidates are tried best shrink factor first (then longest
wait), so a good table is found early; a branch is followed only if its bound can still beat (or tie) the best
table so far. The bound: the seats still to fill bring at best the largest shrink factors left (quality rises with
each factor), adding players never narrows the spread, and each further seat waited at most the longest wait left.
Ties are settled by the combinations order explicitly, so the order of trying changes nothing. When every
candidate is one seat, the bound of "the seats still to fill, all taken from here on" only falls along the order
of trying: once it loses, no later candidate at that depth can win, and the loop stops there.

Sums are kept relative to the served ticket's mu, so that the spread of a near-even table is not lost to
cancellation between large sums. The steps: ``_columns`` reads the candidates into lists in the order of trying,
``_factor_tables`` precomputes the one-seat bound, ``_branch_and_bound`` walks the combinations (a ``_Walk``: the
recursion and the state it shares, the best table so far, as one small object).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import add, mul
from typing import NamedTuple

from matchmaking.engine.rules import ANY_SIZE_AFTER, BETA_SQ, CANDIDATES, QUALITY_DIGITS
from matchmaking.engine.state import PassState

# A branch is skipped only when its bound, inflated by this relative margin, still loses: floating-point
# rounding of the running sums can never make the search skip the table it would otherwise have chosen.
_BOUND_MARGIN = 1e-12
# The same margin for total waits, in seconds.
_WAIT_MARGIN = 1e-9
# Qualities this far below the best so far cannot round up to it.
_ROUNDING = 2 * 10.0**-QUALITY_DIGITS
_INFLATE = 1 + _BOUND_MARGIN
# Per-candidate constants of the usual search (every candidate one seat, every two fit, nobody refusing).
_ONES = (1,) * (CANDIDATES + 1)
_ANYONE = (-1,) * (CANDIDATES + 1)  # a mask of everyone: ``mask & ~_ANYONE[pos]`` is always 0
_NOBODY = (0,) * (CANDIDATES + 1)
_REFUSING_NOBODY = (False,) * (CANDIDATES + 1)


class _Columns(NamedTuple):
    """The candidates of one search, one sequence per quantity, indexed by position in the order of trying."""

    ks: list[int]  # the candidate's index among the served ticket's candidates
    cs: list[int]  # its place in the pass (Elo order)
    single: bool  # every candidate one seat
    taken: list[int] | tuple[int, ...]  # seats
    waits: list[float]
    xs: list[float]  # the largest shrink factor of a seat
    weights: list[float]
    shrinks: list[float]  # the product of its seats' shrink factors
    seat_waits: list[float]  # its wait multiplied by its seats
    seats_left: list[int] | range  # seats from this position on
    firsts: list[float]  # sum(u·d), d relative to the served ticket's mu
    seconds: list[float]  # sum(u·d²)
    masks: list[int] | tuple[int, ...]  # bit k: fits with candidate k
    bits: list[int] | tuple[int, ...]  # its own bit (1 << k)
    refusing: list[bool] | tuple[bool, ...]  # refuses same-IP tables
    heads: list[list[float]]  # one seat each: see _factor_tables
    sums: list[list[float]]


def best_group(
    state: PassState, served: int, cands: list[int], seatable: list[int], fits: list[int] | None, size: int, need: int
) -> tuple[int, ...] | None:
    """The best group of ``seatable`` candidates (in the order to try) filling ``need`` seats at a table of
    ``size`` with ``served``, as indices into ``cands`` in ascending order; None if no group is valid."""
    columns = _columns(state, served, cands, seatable, fits, need)
    if columns is None:
        return None
    return _branch_and_bound(state, served, size, need, columns)


def _columns(
    state: PassState, served: int, cands: list[int], seatable: list[int], fits: list[int] | None, need: int
) -> _Columns | None:
    """The candidates read into lists in the order of trying; None when they cannot fill ``need`` seats."""
    ks = seatable  # already in the order to try
    cs = [cands[k] for k in ks]
    count = len(cs)
    wait_of, weight_of = state.wait, state.weight
    waits = [wait_of[c] for c in cs]
    xs = [state.top_shrink[c] for c in cs]
    weights = [weight_of[c] for c in cs]
    reference = state.mu[served]
    seats_of: Sequence[int]
    taken: list[int] | tuple[int, ...]
    seats_left: list[int] | range
    masks: list[int] | tuple[int, ...]
    bits: list[int] | tuple[int, ...]
    refusing: list[bool] | tuple[bool, ...]
    if state.party_skills:
        seats_of = state.seats
        taken = [seats_of[c] for c in cs]
        single = sum(taken) == count
    else:
        seats_of, taken, single = _ONES, _ONES, True
    if single:
        if count < need:
            return None
        # One seat each: the shrink factor is the seat's, the seat-weighted wait the wait, and the sums of
        # quality() one term each.
        shrinks, seat_waits, seats_left = xs, waits, range(count, -1, -1)
        mus = state.mu
        gaps = [mus[c] - reference for c in cs]
        firsts = [0.0 + w * d for w, d in zip(weights, gaps, strict=True)]
        seconds = [0.0 + w * d * d for w, d in zip(weights, gaps, strict=True)]
        heads, sums = _factor_tables(xs, need)
    else:
        shrinks = [state.shrink[c] for c in cs]
        seat_waits = [wait_of[c] * seats_of[c] for c in cs]
        left_from = [0] * (count + 1)
        for pos in range(count - 1, -1, -1):
            left_from[pos] = left_from[pos + 1] + taken[pos]
        if left_from[0] < need:
            return None
        seats_left = left_from
        moments = [state.centred(c, reference) for c in cs]
        firsts = [f for f, _ in moments]
        seconds = [s for _, s in moments]
        heads, sums = [], []
    if fits is None:
        # Every two fit and nobody refuses anything: no mask can exclude anyone.
        masks, bits, refusing = _ANYONE, _NOBODY, _REFUSING_NOBODY
    else:
        masks = [fits[k] for k in ks]
        bits = [1 << k for k in ks]
        refusing = [state.refuses[c] for c in cs]
    return _Columns(
        ks,
        cs,
        single,
        taken,
        waits,
        xs,
        weights,
        shrinks,
        seat_waits,
        seats_left,
        firsts,
        seconds,
        masks,
        bits,
        refusing,
        heads,
        sums,
    )


def _factor_tables(xs: list[float], need: int) -> tuple[list[list[float]], list[list[float]]]:
    """heads[n][pos] and sums[n][pos]: the product and the sum of the n factors from position pos on, the largest
    n left there (``xs`` is sorted largest first), multiplied and added in the order the general bound
    (``_largest_factors``) would. One factor is the factor itself (1.0 · x and 0.0 + x are x exactly). Each row
    is the one above times (plus) the factor n - 1 places on, by ``map`` in C: the same operations in the same
    order as a loop over positions, at a fraction of the cost (it is made once per search)."""
    heads: list[list[float]] = [[], xs]
    sums: list[list[float]] = [[], xs]
    for n in range(2, need + 1):
        further = xs[n - 1 :]
        heads.append(list(map(mul, heads[n - 1], further)))
        sums.append(list(map(add, sums[n - 1], further)))
    return heads, sums


def _largest_factors(xs: list[float], taken: list[int] | tuple[int, ...], rest: int, start: int) -> tuple[float, float]:
    """The product and the sum of the largest shrink factors ``rest`` seats can bring from position ``start`` on
    (each position its seats' largest factor, at most its seats): the bound's best case when parties sit."""
    top, spare, more, nxt, count = 1.0, 0.0, rest, start, len(xs)
    while more > 0 and nxt < count:
        use = taken[nxt] if taken[nxt] < more else more
        top *= xs[nxt] ** use
        spare += use * xs[nxt]
        more -= use
        nxt += 1
    return top, spare


def _branch_and_bound(state: PassState, served: int, size: int, need: int, columns: _Columns) -> tuple[int, ...] | None:
    """The walk over the combinations (see the module's docstring), from ``served`` alone."""
    walk = _Walk(state, served, size, columns)
    own_weight = state.weight[served]
    own_moment, own_square = state.centred(served, state.mu[served]) if served in state.party_skills else (0.0, 0.0)
    own_wait = state.wait[served]
    walk.grow(
        0,
        need,
        0,
        own_weight,
        state.shrink[served],
        own_moment,
        own_square,
        own_wait * state.seats[served],
        own_wait,
        state.refuses[served],
        own_square - own_moment * own_moment / own_weight,
    )
    best = walk.best
    return None if best is None else tuple(sorted(columns.ks[p] for p in best))


class _Walk:
    """One search's state: the candidates' columns, the best table so far and the positions chosen on the way.

    Its attributes are what the recursion reads (a closure over them was measured no faster, and a closure that
    recurses is a reference cycle holding the whole pass until the collector finds it)."""

    __slots__ = ("addresses_apart", "best", "best_q", "best_w", "chosen", "columns", "recommended", "served", "size")

    def __init__(self, state: PassState, served: int, size: int, columns: _Columns):
        self.columns = columns
        self.served, self.size, self.recommended = served, size, state.recommended
        self.addresses_apart = state.addresses_apart
        self.best_q, self.best_w = -1.0, -math.inf
        self.best: list[int] | None = None
        self.chosen: list[int] = []

    def grow(
        self,
        start: int,
        left: int,
        mask: int,
        weight: float,
        product: float,
        moment: float,
        square: float,
        total_wait: float,
        oldest: float,
        refuses: bool,
        spread_so_far: float,
    ) -> None:
        """Every group extending ``chosen`` by ``left`` more seats from position ``start`` on that can still beat
        (or tie) the best so far; the arguments are the running sums of the group chosen so far."""
        (_, _, single, taken, waits, xs, weights, shrinks, seat_waits, seats_left, firsts, seconds, masks, bits,
         refusing, heads, sums) = self.columns  # fmt: skip
        size, chosen = self.size, self.chosen
        sqrt, exp, beta_sq, inflate = math.sqrt, math.exp, BETA_SQ, _INFLATE
        if single:
            room = beta_sq * weight
            damp = (exp(-0.5 * spread_so_far) if spread_so_far > 0.0 else 1.0) * inflate
            head, tail = heads[left], sums[left]
        for pos in range(start, len(waits)):
            if seats_left[pos] < left:
                break  # too few seats left from here on
            if single and sqrt(product * head[pos] * size / (room + tail[pos])) * damp < self.best_q - _ROUNDING:
                break  # the factors only fall from here on: no later table can beat (or tie) the best
            seats = taken[pos]
            if seats > left or mask & ~masks[pos]:
                continue
            weight_ = weight + weights[pos]
            product_ = product * shrinks[pos]
            moment_ = moment + firsts[pos]
            square_ = square + seconds[pos]
            wait_sum = total_wait + seat_waits[pos]
            oldest_ = oldest if oldest >= waits[pos] else waits[pos]
            refuses_ = refuses or refusing[pos]
            rest = left - seats
            spread = square_ - moment_ * moment_ / weight_
            chosen.append(pos)
            if rest == 0:
                if size == self.recommended or oldest_ >= ANY_SIZE_AFTER:
                    self.consider(weight_, product_, spread, wait_sum, refuses_)
            elif seats_left[pos + 1] >= rest:
                # The largest shrink factors left are those of the next positions (sorted that way).
                if single:
                    top, spare = heads[rest][pos + 1], sums[rest][pos + 1]
                else:
                    top, spare = _largest_factors(xs, taken, rest, pos + 1)
                bound = (
                    sqrt(product_ * top * size / (beta_sq * weight_ + spare))
                    * exp(-0.5 * (spread if spread > 0.0 else 0.0))
                    * inflate
                )
                if bound >= self.best_q - _ROUNDING:
                    bound_q = round(bound, QUALITY_DIGITS)
                    if bound_q > self.best_q or (
                        bound_q == self.best_q and wait_sum + rest * max(waits[pos + 1 :]) + _WAIT_MARGIN >= self.best_w
                    ):
                        self.grow(pos + 1, rest, mask | bits[pos], weight_, product_, moment_, square_, wait_sum,
                                  oldest_, refuses_, spread)  # fmt: skip
            chosen.pop()

    def consider(self, weight: float, product: float, spread: float, wait_sum: float, refuses: bool) -> None:
        """The group chosen fills the table: kept if it is valid and beats the best so far (quality to
        QUALITY_DIGITS, then total wait, then combinations order)."""
        chosen, cs = self.chosen, self.columns.cs
        if refuses and not self.addresses_apart(self.served, [cs[p] for p in chosen]):
            return
        q = round(math.sqrt(product * self.size / (BETA_SQ * weight)) * math.exp(-0.5 * spread), QUALITY_DIGITS)
        best_q, best_w, best = self.best_q, self.best_w, self.best
        if q > best_q or (
            q == best_q
            and (wait_sum > best_w or (wait_sum == best_w and best is not None and self._earlier(chosen, best)))
        ):
            self.best_q, self.best_w, self.best = q, wait_sum, chosen[:]

    def _earlier(self, chosen: list[int], best: list[int]) -> bool:
        """``chosen`` comes before ``best`` in combinations order (the candidates' indices, ascending)."""
        ks = self.columns.ks
        return sorted(ks[p] for p in chosen) < sorted(ks[p] for p in best)
