"""TrueSkill for matchmaking: a thin pure wrapper over the ``trueskill`` package with its default parameters.

TrueSkill is never shown as the rating; matchmaking uses it to judge how even a table would be. The wrapper
only translates between the service's (player_key, Skill) sides and trueskill's rating groups, so the numbers
are exactly trueskill's own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import trueskill

K = TypeVar("K", bound=Hashable)


class _Environment(trueskill.TrueSkill):  # type: ignore[misc]
    """trueskill's environment with its inverse normal CDF remembered per argument.

    Why: ``rate`` computes the draw margin of every pair of adjacent sides of every game, each an inverse CDF
    (Newton steps on a pure-Python erfc) of ``(draw probability + 1) / 2``: one argument, the same every time.
    The function is pure, so the remembered value is the very float it would compute (bit for bit;
    tests/pure/ratings/test_skill.py replays random games on a plain environment): about 2 % of rating a
    four-player game, measured."""

    ppf: Callable[..., float]

    def __init__(self) -> None:
        super().__init__()
        self.ppf = functools.cache(self.ppf)


# One private environment with the package defaults (mu 25, sigma 25/3, beta sigma/2, tau sigma/100, draw
# probability 0.10, pure-Python backend): building it once is faster than per call, and not using the global
# environment keeps results independent of whoever calls trueskill.setup() elsewhere.
ENV = _Environment()
# Fewer sides than this is a solo game, which TrueSkill does not rate.
MIN_SIDES = 2


@dataclass(frozen=True, slots=True)
class Skill:
    """A player's TrueSkill belief: mean skill ``mu`` and its uncertainty ``sigma``."""

    mu: float
    sigma: float


# Where every player starts: the package defaults.
DEFAULT_SKILL = Skill(mu=ENV.mu, sigma=ENV.sigma)


def _groups(sides: Sequence[Sequence[tuple[K, Skill]]]) -> list[tuple[trueskill.Rating, ...]]:
    """trueskill's rating groups: one tuple of Ratings per side, teams kept as teams."""
    if len(sides) < MIN_SIDES:
        raise ValueError(f"TrueSkill needs at least {MIN_SIDES} sides, got {len(sides)}")
    rating = trueskill.Rating
    groups = []
    for members in sides:
        if not members:
            raise ValueError("a side needs at least one player")
        groups.append(tuple(rating(sk.mu, sk.sigma) for _, sk in members))
    return groups


def rate_skill(sides: Sequence[Sequence[tuple[K, Skill]]], places: Sequence[int]) -> dict[K, Skill]:
    """New Skill per player after one game; ``places`` as in Elo (1 best, equal places tie).

    trueskill's ranks also mean "lower is better, equal is a tie", so places are passed through unchanged.
    """
    if len(places) != len(sides):
        raise ValueError(f"{len(sides)} sides but {len(places)} places")
    rated = ENV.rate(_groups(sides), ranks=list(places))
    result: dict[K, Skill] = {}
    total = 0
    for members, new in zip(sides, rated, strict=True):
        total += len(members)
        for (key, _), r in zip(members, new, strict=True):
            result[key] = Skill(r.mu, r.sigma)
    if len(result) != total:
        raise ValueError("a player appears more than once in the game")
    return result


def match_quality(sides: Sequence[Sequence[tuple[K, Skill]]]) -> float:
    """trueskill's draw probability for these sides (0..1): higher means a more even table."""
    quality: float = ENV.quality(_groups(sides))
    return quality
