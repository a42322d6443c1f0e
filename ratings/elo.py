"""Elo rules of ``docs/ratings.md``: pure maths, no Django, no I/O.

Players check these numbers by hand, so every formula here is the spec's formula written out literally and
every constant is a named default that the service overrides from Django settings through :class:`EloConfig`.
Nothing is rounded here: ratings and deltas are plain doubles; only the API rounds to 2 decimals.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, fields
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

# Every new player starts here (spec: R0 = 1500); also the zero point of the displayed level.
INITIAL_RATING = 1500.0
# New players move fast so their rating finds its level within a few games.
K_NEW = 60
# After 10 games the rating is roughly placed: smaller steps, less noise.
K_MID = 40
# From 20 games on a single result should only nudge an established rating.
K_SETTLED = 20
# Rated games played (before the current one) from which K_MID applies.
MID_FROM = 10
# Rated games played (before the current one) from which K_SETTLED applies.
SETTLED_FROM = 20
# Points a quitter loses on top of its last-place delta, so quitting is never cheaper than losing.
QUIT_PENALTY = 10.0
# Elo's logistic scale: a 400-point gap means 10:1 odds.
ELO_SCALE = 400.0
# Fewer sides than this is a solo game, which is recorded but never rated.
MIN_SIDES = 2
# Score of side s against side t (spec: 1 if s placed better, 0.5 if tied, 0 if worse).
WIN, DRAW, LOSS = 1.0, 0.5, 0.0


@dataclass(frozen=True, slots=True)
class EloConfig:
    """The tunable constants of ``docs/ratings.md``; the service builds one from Django settings."""

    initial: float = INITIAL_RATING
    k_new: int = K_NEW
    k_mid: int = K_MID
    k_settled: int = K_SETTLED
    mid_from: int = MID_FROM
    settled_from: int = SETTLED_FROM
    quit_penalty: float = QUIT_PENALTY
    # None = no floor (the spec's default); when set no rating goes below it.
    floor: float | None = None

    def __post_init__(self) -> None:
        # A misordered threshold would silently give a settled player K_NEW: fail when configuring instead.
        if not 0 <= self.mid_from <= self.settled_from:
            raise ValueError("EloConfig needs 0 <= mid_from <= settled_from")


DEFAULT = EloConfig()


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's state in one game title just BEFORE a game: all maths of one game uses these values."""

    rating: float
    # Rated games played in this title before this one (decides K).
    games: int


@dataclass(frozen=True, slots=True)
class Change:
    """One row of rating history: enough to audit the game by hand and to rebuild ratings by folding rows."""

    before: float
    after: float
    delta: float
    k: int
    games_before: int


# rate_sides builds its Change rows (in _changes) without the frozen-dataclass __init__, whose five
# object.__setattr__ calls cost about a third of a 4-player game; the slot descriptors set the very same fields.
_new_object = object.__new__
_set_before, _set_after, _set_delta, _set_k, _set_games_before = (
    getattr(Change, f.name).__set__ for f in fields(Change)
)


def k_bracket(games: int, config: EloConfig = DEFAULT) -> int:
    """The K bracket of the rated games played BEFORE the game (docs/ratings.md, "K"): 0 new (<10), 1 mid (<20),
    2 settled. The one place the bracket rule is written; ``k_factor`` and ``explain.k_reason`` read it."""
    if games < config.mid_from:
        return 0
    if games < config.settled_from:
        return 1
    return 2


def k_factor(games: int, config: EloConfig = DEFAULT) -> int:
    """K from the rated games played in this title BEFORE the game applied (<10: 60, <20: 40, else 20)."""
    return (config.k_new, config.k_mid, config.k_settled)[k_bracket(games, config)]


def expected(a: float, b: float) -> float:
    """Chance that a side rated ``a`` beats a side rated ``b``: ``1 / (1 + 10 ** ((b - a) / 400))``."""
    chance: float = 1.0 / (1.0 + 10.0 ** ((b - a) / ELO_SCALE))
    return chance


def multiplier(n: int, recommended_sides: int) -> float:
    """P(n): scales the sum over n - 1 opponents so the total at stake grows up to ``rec`` sides, then flat.

    ``rec`` (docs/ratings.md) is ``recommended_sides``: the game's recommended number of players, counting teams.
    ``2 / n`` when ``n <= rec``, else ``2 * (rec - 1) / (rec * (n - 1))``; with n = 2 it is 1 (classic Elo).
    """
    if n < MIN_SIDES:
        raise ValueError(f"a rated game needs at least {MIN_SIDES} sides, got {n}")
    if recommended_sides < MIN_SIDES:
        raise ValueError(f"recommended number of sides must be at least {MIN_SIDES}, got {recommended_sides}")
    if n <= recommended_sides:
        return 2.0 / n
    return 2.0 * (recommended_sides - 1) / (recommended_sides * (n - 1))


def rate_sides(
    sides: Sequence[Sequence[tuple[K, Standing]]],
    places: Sequence[int],
    recommended_sides: int,
    quitter: K | None = None,
    config: EloConfig = DEFAULT,
) -> dict[K, Change]:
    """Rate one competitive game of ``n = len(sides)`` sides; returns one :class:`Change` per player.

    ``sides[i]`` lists side i's members as ``(player_key, Standing)`` (one member unless the game is played in
    teams); ``places[i]`` is its place (1 best, equal places tie). A team is rated as the mean of its members,
    so teammates never rate against each other. Every ordered pair of different sides contributes
    ``S - E`` to the first side, all from the ratings before the game, and every delta is applied at once:
    ``delta_i = K_i * P(n) * sum_t (S(s, t) - E(R_s, R_t))``.

    ``quitter``: the caller has already placed that player's side alone in last place (the quitter's own
    result is decided by the rules, not here); only that player then pays ``quit_penalty`` on top.
    Everyone tied: nobody's rating moves, yet a Change row is returned for each player because the game still
    counts as played. ``config.floor``, when set, clamps every ``after`` at the floor (delta follows).
    """
    n = len(sides)
    if n < MIN_SIDES:
        raise ValueError(f"a rated game needs at least {MIN_SIDES} sides, got {n}")
    if len(places) != n:
        raise ValueError(f"{n} sides but {len(places)} places")
    if quitter is not None:
        _check_quitter(sides, places, quitter)
    means, members_total = _side_means(sides)
    if places.count(places[0]) == n:
        # Everyone tied: the formula would still move unequal ratings, but the spec says nothing changes.
        gains, p = None, 0.0
    else:
        gains, p = _gains(means, places), multiplier(n, recommended_sides)
    changes = _changes(sides, gains, p, quitter, config)
    if len(changes) != members_total:
        raise ValueError("a player appears more than once in the game")
    return changes


def _side_means(sides: Sequence[Sequence[tuple[K, Standing]]]) -> tuple[list[float], int]:
    """Each side's rating, the mean of its members' ratings before the game; and how many players there are."""
    means = []
    members_total = 0
    for members in sides:
        size = len(members)
        members_total += size
        if size == 1:
            means.append(members[0][1].rating)
        elif size:
            means.append(math.fsum([st.rating for _, st in members]) / size)
        else:
            raise ValueError("a side needs at least one player")
    return means, members_total


def _gains(means: list[float], places: Sequence[int]) -> list[float]:
    """gains[s] = sum over t != s of (S(s, t) - E(R_s, R_t)), all from the ratings before the game. The pair
    (t, s) is exactly the negation (S and E both complement to 1), so each unordered pair is computed once."""
    n = len(means)
    gains = [0.0] * n
    for i in range(n - 1):
        r_i = means[i]
        place_i = places[i]
        gain_i = 0.0
        for j in range(i + 1, n):
            place_j = places[j]
            s = WIN if place_i < place_j else DRAW if place_i == place_j else LOSS
            d = s - 1.0 / (1.0 + 10.0 ** ((means[j] - r_i) / ELO_SCALE))
            gain_i += d
            gains[j] -= d
        gains[i] += gain_i
    return gains


def _changes(
    sides: Sequence[Sequence[tuple[K, Standing]]],
    gains: list[float] | None,
    p: float,
    quitter: K | None,
    config: EloConfig,
) -> dict[K, Change]:
    """Every player's Change, all applied at once: ``K_i * P(n) * gain`` of the side (None: everyone tied, no
    move), the quit penalty on the quitter alone, then the floor. One row per key: a repeated player overwrites."""
    floor = config.floor
    changes: dict[K, Change] = {}
    for i, members in enumerate(sides):
        gain = gains[i] if gains is not None else 0.0
        for key, st in members:
            g = st.games
            k = k_factor(g, config)
            before = after = st.rating
            delta = 0.0
            if gains is not None:
                delta = k * p * gain
                if quitter is not None and key == quitter:
                    delta -= config.quit_penalty
                after = before + delta
                if floor is not None and after < floor:
                    after = floor
                    delta = after - before
            change = _new_object(Change)
            _set_before(change, before)
            _set_after(change, after)
            _set_delta(change, delta)
            _set_k(change, k)
            _set_games_before(change, g)
            changes[key] = change
    return changes


def _check_quitter(sides: Sequence[Sequence[tuple[K, Standing]]], places: Sequence[int], quitter: K) -> None:
    """The spec places the quitter's side alone below every other side; refuse a caller that forgot to."""
    for i, members in enumerate(sides):
        for key, _ in members:
            if key == quitter:
                last = places[i]
                if places.count(last) != 1 or max(places) != last:
                    raise ValueError("the quitter's side must be placed alone below every other side")
                return
    raise ValueError("the quitter is not among the players")


# Level bands as (lowest floor(d) of the band, name), highest first; d = rating - initial.
LEVELS: tuple[tuple[int, str], ...] = (
    (700, "Master"),
    (500, "Expert"),
    (300, "Strong"),
    (200, "Good"),
    (100, "Average"),
)
# Above the initial rating but below the first band of LEVELS.
APPRENTICE = "Apprentice"
# At or below the initial rating.
BEGINNER = "Beginner"


def level(rating: float, initial: float = INITIAL_RATING) -> str:
    """The level shown by the API, from ``d = rating - initial``.

    Spec: Beginner (d <= 0), Apprentice (0 < d < 100), Average (100-199), Good (200-299), Strong (300-499),
    Expert (500-699), Master (700+), "using floor(d)". The bands from 100 on are integer ranges, so they are
    compared on ``floor(d)`` (d = 199.5 is Average, not in a gap). Beginner/Apprentice are written as
    inequalities on d itself, so that test uses d: a rating 0.3 above the start is Apprentice, not Beginner.
    """
    d = rating - initial
    if d <= 0:
        return BEGINNER
    whole = math.floor(d)
    for lowest, name in LEVELS:
        if whole >= lowest:
            return name
    return APPRENTICE
