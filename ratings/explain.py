"""Why a rating changed: one game's stored history rows taken apart, term by term (docs/ratings.md, "Reading an
explanation").

Pure, no Django: the caller passes what the history rows and the game's seats hold (rating before, K used, games
before, place, side, quit; for Hanabi the bot's rating the team met) and this module recomputes each term with
the rules' own functions (:func:`ratings.elo.expected`, :func:`ratings.elo.multiplier`, the Hanabot rules of
:mod:`ratings.hanabi`). It never rates a game itself: the delta shown is the stored one, and the terms are what
the rule adds up to it, so ``sum(term) + quit_penalty (+ floor)`` equals the stored delta up to float rounding
(the tests hold it to 1e-9 for every title).

Why the stored K and not ``k_factor(games_before)``: the row says what was applied; an operator who changed the
K settings since must not change the explanation of an old game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ratings import hanabi
from ratings.elo import DEFAULT, DRAW, LOSS, WIN, EloConfig, expected, k_bracket, k_factor, multiplier

# The opponent named in a Hanabi explanation: the team's only duel is against the bot (docs/ratings.md).
HANABOT = "Hanabot"


@dataclass(frozen=True, slots=True)
class StoredSeat:
    """One seat of a rated game as the database holds it: the Seat row and its history (RatingChange) row."""

    player: str
    side: int
    place: int | None
    quit: bool
    before: float
    delta: float
    k: int
    games_before: int
    # A moderator's reset of this player in this title came before this game (the games count was kept).
    reset_before: bool = False


@dataclass(frozen=True, slots=True)
class Term:
    """One duel of a side against another side (or against Hanabot): ``term = K·P·(S − E)``."""

    against: str
    against_players: tuple[str, ...]
    rating: float
    expected: float
    score: float
    term: float


@dataclass(frozen=True, slots=True)
class SeatExplanation:
    player: str
    before: float
    k: int
    k_reason: str
    games_before: int
    place: int | None
    quit: bool
    # The side's rating as the rules compute it (a team's mean; the player's own rating alone).
    side_rating: float
    team: tuple[str, ...]
    terms: tuple[Term, ...]
    quit_penalty: float
    # Non-zero only when ELO_FLOOR stopped the rating: what the floor gave back (delta = terms + penalty + floor).
    floor: float
    delta: float
    terms_sum: float
    rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HanabotRow:
    """The row of the Hanabot table the team met, and which rule picked it (docs/ratings.md, Hanabi 3-6)."""

    deck: str
    variant_class: str
    team_size: int
    score: int
    threshold: int
    max_score: int
    rule: str
    rating: float
    perfect_score_rule: bool


@dataclass(frozen=True, slots=True)
class Explanation:
    sides: int
    recommended_sides: int | None
    multiplier: float | None
    seats: tuple[SeatExplanation, ...]
    team_rating: float | None = None
    hanabot: HanabotRow | None = None
    rules: tuple[str, ...] = field(default=())


# Names of the special rules an explanation may cite (machine-readable, listed in docs/ratings.md).
EVERYONE_TIED = "everyone_tied"
QUIT_LAST = "quit_placed_last"
FLOOR = "floor"
TABLE_ROW = "table"
BELOW_TIE = "below_threshold_tie_with_1000"
BELOW_LOSE = "below_threshold_lose_to_weakest"
PERFECT = "perfect_score"


def k_reason(k: int, games_before: int, reset_before: bool = False, config: EloConfig = DEFAULT) -> str:
    """Why K had this value: the games-played bracket (docs/ratings.md, "K"), and a reset when one came before."""
    expected_k = k_factor(games_before, config)
    bracket = (
        f"fewer than {config.mid_from}",
        f"{config.mid_from} to {config.settled_from - 1}",
        f"{config.settled_from} or more",
    )[k_bracket(games_before, config)]
    text = f"{games_before} rated games before this one: {bracket}, K {expected_k}"
    if reset_before:
        text += "; a moderator's reset came before this game, which keeps the games played (K does not start over)"
    if k != expected_k:
        text += f"; K {k} was applied when the game was rated (the K settings have changed since)"
    return text


def _side_rating(ratings: Sequence[float]) -> float:
    # As ratings.elo.rate_sides computes it: one member is their rating, a team the fsum mean.
    return ratings[0] if len(ratings) == 1 else math.fsum(ratings) / len(ratings)


def explain_competitive(
    seats: Sequence[StoredSeat], recommended_sides: int, config: EloConfig = DEFAULT
) -> Explanation:
    """A competitive game: every side's duel against every other side, ``K_i · P(n) · (S − E)`` per duel.

    ``seats`` in any order; ``side`` groups teammates (as recorded, 0 = best side).
    """
    by_side: dict[int, list[StoredSeat]] = {}
    for seat in seats:
        by_side.setdefault(seat.side, []).append(seat)
    order = sorted(by_side)
    n = len(order)
    means = {side: _side_rating([s.before for s in by_side[side]]) for side in order}
    places: dict[int, int] = {}
    for side in order:
        place = by_side[side][0].place
        if place is None:
            raise ValueError(f"a competitive seat without a place (side {side})")
        places[side] = place
    tied = len({places[side] for side in order}) == 1
    p = multiplier(n, recommended_sides)
    game_rules = (EVERYONE_TIED,) if tied else ()
    out = []
    for seat in seats:
        own = seat.side
        terms = []
        for other in order:
            if other == own:
                continue
            mine, theirs = places[own], places[other]
            s = WIN if mine < theirs else DRAW if mine == theirs else LOSS
            e = expected(means[own], means[other])
            # Everyone tied: the spec moves nobody, whatever the expected scores say.
            term = 0.0 if tied else seat.k * p * (s - e)
            members = tuple(m.player for m in by_side[other])
            terms.append(Term(" & ".join(members), members, means[other], e, s, term))
        out.append(_seat(seat, means[own], tuple(m.player for m in by_side[own]), terms, config, tied))
    return Explanation(n, recommended_sides, p, tuple(out), rules=game_rules)


def _seat(
    seat: StoredSeat,
    side_rating: float,
    team: tuple[str, ...],
    terms: list[Term],
    config: EloConfig,
    tied: bool,
    placed: bool = True,
    extra_rules: tuple[str, ...] = (),
) -> SeatExplanation:
    total = math.fsum(t.term for t in terms)
    # Everyone tied moves nobody, the quitter included; Hanabi has no places, so a quit there changes nothing.
    penalty = -config.quit_penalty if seat.quit and placed and not tied else 0.0
    rules = list(extra_rules)
    if seat.quit and placed:
        rules.append(QUIT_LAST)
    floor = 0.0
    if config.floor is not None and seat.before + total + penalty < config.floor:
        # The floor stopped the rating: the stored delta is the distance actually moved.
        floor = seat.delta - (total + penalty)
        rules.append(FLOOR)
    return SeatExplanation(
        player=seat.player,
        before=seat.before,
        k=seat.k,
        k_reason=k_reason(seat.k, seat.games_before, seat.reset_before, config),
        games_before=seat.games_before,
        place=seat.place if placed else None,
        quit=seat.quit,
        side_rating=side_rating,
        team=team if len(team) > 1 else (),
        terms=tuple(terms),
        quit_penalty=penalty,
        floor=floor,
        delta=seat.delta,
        terms_sum=total,
        rules=tuple(rules),
    )


def explain_hanabi(
    seats: Sequence[StoredSeat], *, deck: str, rating_score: int, bot: float, config: EloConfig = DEFAULT
) -> Explanation:
    """Hanabi: the team (mean rating T) against Hanabot (rating ``bot``, stored with the history rows).

    Which rule picked the bot is read from the score and the stored bot: at or above the threshold, the table's row
    for the score; below it, 1000 means "tie with 1000" and anything else the older "lose to the weakest" (the
    table's row at the threshold, S = 0). The stored bot is the one the game met, whatever the table says today
    (moderators edit it), exactly as the rebuild replays it.
    """
    cls = hanabi.variant_class(deck)
    size = len(seats)
    threshold, top = hanabi.THRESHOLD[cls], hanabi.MAX_SCORE[cls]
    team = math.fsum(s.before for s in seats) / size
    e = expected(team, bot)
    if rating_score >= threshold:
        rule, s = TABLE_ROW, hanabi.TIE
    elif bot == hanabi.BELOW_THRESHOLD_BOT:
        rule, s = BELOW_TIE, hanabi.TIE
    else:
        rule, s = BELOW_LOSE, hanabi.LOSS
    perfect = rating_score == top and hanabi.TIE - e < 0
    if perfect:
        s = hanabi.WIN
    row = HanabotRow(
        deck=deck,
        variant_class=cls,
        team_size=size,
        score=rating_score,
        threshold=threshold,
        max_score=top,
        rule=rule,
        rating=bot,
        perfect_score_rule=perfect,
    )
    names = tuple(seat.player for seat in seats)
    out = []
    for seat in seats:
        term = Term(HANABOT, (), bot, e, s, seat.k * (s - e))
        out.append(
            _seat(seat, team, names, [term], config, False, placed=False, extra_rules=(PERFECT,) if perfect else ())
        )
    return Explanation(
        1, None, None, tuple(out), team_rating=team, hanabot=row, rules=(rule, *([PERFECT] if perfect else ()))
    )
