"""How settled a rating is (docs/ratings.md, "How settled is a rating"): pure maths, no Django, no I/O.

A rating the API shows carries ``provisional``, ``band`` (± points, one standard deviation) and
``games_to_settle``. All three are worked out when the rating is READ, from what the rating row already holds
(games played, the last rated game's time, TrueSkill's sigma): nothing is written, so a player's band can grow while
they are away without a task touching their row.

- Elo has no deviation of its own; its K brackets are the signal: ``band = BAND_PER_K × K`` of the next game
  (60 → 180, 40 → 120, 20 → 60).
- TrueSkill's band is its sigma.
- Inactivity adds variance, as Glicko does: ``band(d) = min(cap, sqrt(band² + c² × d))`` for ``d`` whole days since
  the last rated game in the title. The cap is a newcomer's band: being away never makes a rating less known than
  never having played.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from datetime import datetime

from ratings.elo import DEFAULT, EloConfig, k_factor

# Elo band per point of K: 3 × K turns the brackets 60/40/20 into bands 180/120/60 (60 is lichess's typical
# settled deviation, 180 close to a newcomer's uncertainty).
BAND_PER_K = 3.0
# Variance added per day away, in points² (c = 5): a settled 60 grows to sqrt(60² + 25 × 365) = 112.81 in a year,
# lichess's "60 to 110 in a year".
ELO_GROWTH_PER_DAY = 25.0
# A rating is provisional while its band is above this (lichess's 110).
ELO_PROVISIONAL_BAND = 110.0
# TrueSkill (docs/ratings.md, "TrueSkill"): the package's starting sigma; a band above half of it is provisional.
TS_SIGMA0 = 25.0 / 3.0
TS_PROVISIONAL_BAND = TS_SIGMA0 / 2.0
# TrueSkill's own dynamics factor tau (25/300) added once per day away: tau² per day.
TS_GROWTH_PER_DAY = (25.0 / 300.0) ** 2

_DAY_SECONDS = 86400.0


@dataclass(frozen=True, slots=True)
class Settledness:
    """What the API shows beside a rating."""

    provisional: bool
    band: float
    # Further rated games until the rating is no longer provisional (0 when it is not); None where the number
    # cannot be known in advance (TrueSkill: sigma's fall depends on the opponents).
    games_to_settle: int | None


def days_away(last_game_at: datetime | None, now: datetime) -> int:
    """Whole days since the last rated game (0 without one, or for a clock behind the game)."""
    if last_game_at is None:
        return 0
    return max(0, math.floor((now - last_game_at).total_seconds() / _DAY_SECONDS))


def grown(band: float, days: int, growth_per_day: float, cap: float) -> float:
    """The band after ``days`` away: ``min(cap, sqrt(band² + growth_per_day × days))`` (never below ``band``)."""
    return max(band, min(cap, math.sqrt(band * band + growth_per_day * days)))


def elo_band(games: int, days: int = 0, config: EloConfig = DEFAULT) -> float:
    """An Elo rating's band: 3 × the K of its next game, grown by ``days`` away, capped at a newcomer's band."""
    cap = BAND_PER_K * config.k_new
    return grown(BAND_PER_K * k_factor(games, config), days, ELO_GROWTH_PER_DAY, cap)


def elo_settledness(games: int, days: int = 0, config: EloConfig = DEFAULT) -> Settledness:
    """``provisional`` when the band is above 110; ``games_to_settle`` counts the games to the settled bracket.

    A player settled by games but provisional from a long absence needs one game: it resets ``days`` to 0.
    """
    band = elo_band(games, days, config)
    provisional = band > ELO_PROVISIONAL_BAND
    to_settle = max(config.settled_from - games, 0)
    if provisional and to_settle == 0:
        to_settle = 1
    elif not provisional:
        to_settle = 0
    return Settledness(provisional=provisional, band=band, games_to_settle=to_settle)


def on_board(games: int, config: EloConfig = DEFAULT) -> dict[str, object]:
    """A leaderboard entry's three fields, from its games alone, as of the player's last game (``days`` 0).

    Every ranked player played within the board's 90 days, and 90 days cannot make a settled rating provisional
    (``sqrt(60² + 25 × 90) = 76.49``), so ``provisional`` and ``games_to_settle`` are exactly the player page's;
    only the band may show up to that much less growth. Boards carry no last-game time (the Redis board answers
    without a query), which is why. A new dict each call (the caller may add to it) from a cached answer.
    """
    return dict(_on_board_fields(games, config))


@functools.lru_cache(maxsize=4096)
def _on_board_fields(games: int, config: EloConfig) -> tuple[tuple[str, object], ...]:
    """Cached per process: a board page asks once per entry, and the answer depends on these two values alone (the
    config is frozen; changed settings make a new one, so a new key). Worked out, it was a tenth of a board read's
    CPU (docs/testing.md, the request path)."""
    return tuple(present(elo_settledness(games, 0, config)).items())


def trueskill_settledness(sigma: float | None, days: int = 0) -> Settledness:
    """TrueSkill's band is sigma grown by tau² per day away, capped at the starting sigma; None means unrated."""
    base = TS_SIGMA0 if sigma is None else sigma
    band = grown(base, days, TS_GROWTH_PER_DAY, max(TS_SIGMA0, base))
    return Settledness(provisional=band > TS_PROVISIONAL_BAND, band=band, games_to_settle=None)


def present(found: Settledness) -> dict[str, object]:
    """The API's three fields; the band rounded to 2 decimals like every shown rating (docs/ratings.md)."""
    return {"provisional": found.provisional, "band": round(found.band, 2), "games_to_settle": found.games_to_settle}
