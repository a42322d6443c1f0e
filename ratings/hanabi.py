"""Hanabi rating of ``docs/ratings.md``: the cooperative team plays one imaginary Elo duel against Hanabot.

Hanabi players win or lose together, so there is no opponent to rate against; instead the team's score is
turned into the rating of a bot that would reach that score, and the team "ties" that bot. Pure maths, no
Django: the bot table is passed in (the service loads the moderator-edited table from the database;
:func:`load_default_table` reads the shipped defaults).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from arena.games.hanabi import DECK, UNRATED_DECKS
from arena.games.hanabi import MAX_SCORE as DECK_MAX_SCORE
from ratings.elo import DEFAULT, Change, EloConfig, Standing, expected, k_factor

K = TypeVar("K", bound=Hashable)

# The variant the rating reads (the rules module's deck): it picks the Hanabot table's class.
DECK_VARIANT = DECK
# Deck variant -> variant class of the Hanabot table; "hard" (55 cards) has no table, so it is never rated.
VARIANT_CLASS = {"normal": "50", "tricky": "60", "very_difficult": "60m"}
# Best possible score per class (the rules module's, per deck): a perfect game never costs points.
MAX_SCORE = {cls: DECK_MAX_SCORE[deck] for deck, cls in VARIANT_CLASS.items()}
# Lowest score with a bot rating in the table; below it the team meets the weakest bot.
THRESHOLD = {"50": 18, "60": 21, "60m": 21}
# Bot rating below the threshold (current rule): weak enough that only a weak team keeps its rating.
BELOW_THRESHOLD_BOT = 1000.0
# Setting value: below the threshold the team ties a 1000-rated bot (the spec's default).
TIE_WITH_1000 = "tie_with_1000"
# Setting value: the older rule, the team loses to the bot rated at the threshold score.
LOSE_TO_WEAKEST = "lose_to_weakest"
BELOW_RULES = (TIE_WITH_1000, LOSE_TO_WEAKEST)
# Outcomes of the duel against the bot.
TIE, WIN, LOSS = 0.5, 1.0, 0.0
# Fewer players than this is a solo game, which is recorded but never rated.
MIN_TEAM = 2
# The shipped defaults of the Hanabot table (a verbatim copy of the spec's hanabot.csv).
DEFAULT_TABLE_PATH = Path(__file__).resolve().parent / "data" / "hanabot.csv"
# Columns of hanabot.csv, in order.
TABLE_COLUMNS = ("variant_class", "team_size", "score", "hanabot_elo")

# (variant_class, team_size, rating score) -> Hanabot's Elo.
BotTable = Mapping[tuple[str, int, int], float]


class NotRatable(ValueError):
    """The deck cannot be rated (``hard``): a rated game with it is refused, never silently left unrated."""


def variant_class(deck: str) -> str:
    """Class of the Hanabot table for a deck; raises :class:`NotRatable` for ``hard``."""
    if deck in UNRATED_DECKS:  # recorded only with rated: false (API code variant_not_rated)
        raise NotRatable(f"Hanabi deck {deck!r} cannot be rated")
    try:
        return VARIANT_CLASS[deck]
    except KeyError:
        raise ValueError(f"unknown Hanabi deck {deck!r}") from None


def load_default_table(path: str | Path = DEFAULT_TABLE_PATH) -> dict[tuple[str, int, int], float]:
    """Parse a table in hanabot.csv format (header ``variant_class,team_size,score,hanabot_elo``)."""
    table: dict[tuple[str, int, int], float] = {}
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = tuple(col.strip() for col in next(reader))
        if header != TABLE_COLUMNS:
            raise ValueError(f"unexpected Hanabot table header {header!r}")
        for row in reader:
            if not row:
                continue
            cls, size, score, elo = (col.strip() for col in row)
            if cls not in MAX_SCORE:
                raise ValueError(f"unknown variant class {cls!r} in Hanabot table")
            key = (cls, int(size), int(score))
            if key in table:
                raise ValueError(f"duplicate Hanabot table row {key!r}")
            table[key] = float(elo)
    return table


def bot_duel(
    table: BotTable, cls: str, team_size: int, score: int, below_rule: str = TIE_WITH_1000
) -> tuple[float, float]:
    """Hanabot's rating B and the team's outcome S, BEFORE the perfect-score rule.

    At or above the threshold: B from the table, S = 0.5. Below it: with ``tie_with_1000`` (default)
    B = 1000 and S = 0.5; with ``lose_to_weakest`` B = the table's rating at the threshold score, S = 0.
    """
    if cls not in THRESHOLD:
        raise ValueError(f"unknown variant class {cls!r}")
    if not 0 <= score <= MAX_SCORE[cls]:
        raise ValueError(f"score {score} out of range for class {cls}")
    threshold = THRESHOLD[cls]
    if score >= threshold:
        return _lookup(table, cls, team_size, score), TIE
    if below_rule == TIE_WITH_1000:
        return BELOW_THRESHOLD_BOT, TIE
    if below_rule == LOSE_TO_WEAKEST:
        return _lookup(table, cls, team_size, threshold), LOSS
    raise ValueError(f"unknown below-threshold rule {below_rule!r}; expected one of {BELOW_RULES}")


class HanabotRowMissing(ValueError):
    """The Hanabot table lacks a row a rating needs: moderators edit that table, so a caller that only previews a
    rating (a table's stakes) can tell this apart from a game that breaks the rules."""


def _lookup(table: BotTable, cls: str, team_size: int, score: int) -> float:
    """Table lookup with an error that names the missing row, since moderators edit this table."""
    try:
        return float(table[(cls, team_size, score)])
    except KeyError:
        raise HanabotRowMissing(f"Hanabot table has no row for {(cls, team_size, score)!r}") from None


def rate_team(
    members: Sequence[tuple[K, Standing]],
    cls: str,
    score: int,
    table: BotTable,
    below_rule: str = TIE_WITH_1000,
    config: EloConfig = DEFAULT,
) -> dict[K, Change]:
    """Rate a Hanabi team: ``delta_i = K_i * (S - E(T, B))`` with T the mean of the members' ratings.

    ``score`` is the RATING score: the caller has already turned a three-strike game into 0. A perfect score
    (25 for class 50, 30 for 60 / 60m) whose tie would cost points (``0.5 - E < 0``) counts as a win, S = 1.
    ``config.floor``, when set, clamps every ``after`` at the floor.
    """
    size = len(members)
    if size < MIN_TEAM:
        raise ValueError(f"a rated Hanabi game needs at least {MIN_TEAM} players, got {size}")
    bot, s = bot_duel(table, cls, size, score, below_rule)
    team = math.fsum(st.rating for _, st in members) / size
    e = expected(team, bot)
    if score == MAX_SCORE[cls] and TIE - e < 0:
        s = WIN
    floor = config.floor
    changes: dict[K, Change] = {}
    for key, st in members:
        k = k_factor(st.games, config)
        before = st.rating
        delta = k * (s - e)
        after = before + delta
        if floor is not None and after < floor:
            after = floor
            delta = after - before
        changes[key] = Change(before, after, delta, k, st.games)
    if len(changes) != size:
        raise ValueError("a player appears more than once in the team")
    return changes
