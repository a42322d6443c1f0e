"""What a formed table puts at stake for each seat, before it starts (docs/matchmaking.md, "Stakes").

Pure, no Django. Each figure is the rules' own function applied to the players' standings at formation, so it is
exactly what recording that outcome would do if nobody's rating moved in between:

- a competitive game: :func:`ratings.elo.rate_sides` with the seat alone in first place (the others after it in
  seating order) and alone in last place (the others before it in seating order); every player a side of one;
- Hanabi: :func:`ratings.hanabi.rate_team` for the whole team at the threshold score and at the perfect score.

Why the others' order is fixed (seating order): a seat's own change depends only on its own place against each
other side, but the rules add the duels in side order, and a float sum in another order can differ in the last
bit; in this order recording that outcome gives exactly the figure quoted.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ratings import hanabi
from ratings.elo import DEFAULT, EloConfig, Standing, rate_sides

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Stake:
    """A seat's rating change in the two outcomes quoted: ``first``/``last`` (competitive) or
    ``threshold``/``perfect`` (Hanabi)."""

    best: float
    worst: float


def competitive_stakes(
    players: Sequence[tuple[K, Standing]], recommended_sides: int, config: EloConfig = DEFAULT
) -> dict[K, Stake]:
    """For each seat: its delta if it places first alone, and if it places last alone (``best``, ``worst``)."""
    n = len(players)
    places = list(range(1, n + 1))
    out: dict[K, Stake] = {}
    for i, (key, standing) in enumerate(players):
        others = [[member] for j, member in enumerate(players) if j != i]
        me = [(key, standing)]
        first = rate_sides([me, *others], places, recommended_sides, None, config)[key].delta
        last = rate_sides([*others, me], places, recommended_sides, None, config)[key].delta
        out[key] = Stake(first, last)
    return out


def hanabi_stakes(
    players: Sequence[tuple[K, Standing]],
    deck: str,
    table: Mapping[tuple[str, int, int], float],
    below_rule: str = hanabi.TIE_WITH_1000,
    config: EloConfig = DEFAULT,
) -> dict[K, Stake]:
    """For each seat: its delta at the threshold score (``worst``: the least score the table rates) and at the
    perfect score (``best``)."""
    cls = hanabi.variant_class(deck)
    at_threshold = hanabi.rate_team(players, cls, hanabi.THRESHOLD[cls], table, below_rule, config)
    perfect = hanabi.rate_team(players, cls, hanabi.MAX_SCORE[cls], table, below_rule, config)
    return {key: Stake(perfect[key].delta, at_threshold[key].delta) for key, _ in players}
