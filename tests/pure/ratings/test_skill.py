"""The TrueSkill wrapper: thin, so its numbers must be exactly trueskill's own."""

import random

import pytest
import trueskill

from ratings.skill import DEFAULT_SKILL, Skill, match_quality, rate_skill


def test_defaults_are_the_package_defaults():
    assert Skill(25.0, 25.0 / 3) == DEFAULT_SKILL


def test_winner_up_loser_down():
    new = rate_skill([[("a", DEFAULT_SKILL)], [("b", DEFAULT_SKILL)]], [1, 2])
    assert new["a"].mu > 25.0 > new["b"].mu
    assert new["a"].sigma < DEFAULT_SKILL.sigma
    assert new["b"].sigma < DEFAULT_SKILL.sigma


def test_tie_between_equal_players_keeps_mu_equal():
    new = rate_skill([[("a", DEFAULT_SKILL)], [("b", DEFAULT_SKILL)]], [1, 1])
    assert new["a"].mu == pytest.approx(new["b"].mu, abs=1e-9)
    assert new["a"].mu == pytest.approx(25.0, abs=1e-9)


def test_matches_trueskill_on_fixed_example():
    # Teams as teams: {a, b} vs {c} vs {d}, places 2, 1, 2 (a tie between sides 0 and 2).
    sides = [
        [("a", Skill(30.0, 5.0)), ("b", Skill(20.0, 7.0))],
        [("c", Skill(27.0, 3.0))],
        [("d", DEFAULT_SKILL)],
    ]
    env = trueskill.TrueSkill()
    R = trueskill.Rating
    (ra, rb), (rc,), (rd,) = env.rate(
        [(R(30.0, 5.0), R(20.0, 7.0)), (R(27.0, 3.0),), (R(25.0, 25.0 / 3),)], ranks=[2, 1, 2]
    )
    new = rate_skill(sides, [2, 1, 2])
    assert new == {
        "a": Skill(ra.mu, ra.sigma),
        "b": Skill(rb.mu, rb.sigma),
        "c": Skill(rc.mu, rc.sigma),
        "d": Skill(rd.mu, rd.sigma),
    }
    # Known published 1v1 figures for the defaults: winner 29.396 / 7.171, loser 20.604 / 7.171.
    one = rate_skill([[("w", DEFAULT_SKILL)], [("l", DEFAULT_SKILL)]], [1, 2])
    assert (one["w"].mu, one["w"].sigma) == pytest.approx((29.396, 7.171), abs=1e-3)
    assert (one["l"].mu, one["l"].sigma) == pytest.approx((20.604, 7.171), abs=1e-3)


def test_match_quality():
    even = match_quality([[("a", DEFAULT_SKILL)], [("b", DEFAULT_SKILL)]])
    uneven = match_quality([[("a", Skill(35.0, 2.0))], [("b", Skill(15.0, 2.0))]])
    assert 0.0 < uneven < even < 1.0
    env = trueskill.TrueSkill()
    assert even == env.quality([(trueskill.Rating(25.0, 25.0 / 3),), (trueskill.Rating(25.0, 25.0 / 3),)])


def test_refusals():
    with pytest.raises(ValueError):
        rate_skill([[("a", DEFAULT_SKILL)]], [1])
    with pytest.raises(ValueError):
        rate_skill([[("a", DEFAULT_SKILL)], [("b", DEFAULT_SKILL)]], [1])
    with pytest.raises(ValueError):
        rate_skill([[("a", DEFAULT_SKILL)], [("a", DEFAULT_SKILL)]], [1, 2])
    with pytest.raises(ValueError):
        match_quality([[("a", DEFAULT_SKILL)], []])


def test_random_games_match_a_plain_trueskill_environment_bit_for_bit():
    # The wrapper's environment remembers the inverse CDF behind every draw margin (ratings/skill.py): replayed on a
    # plain environment of the package, 300 random games (2 to 5 sides, teams of 1 to 3, ties) give the same floats.
    rnd = random.Random(7)
    env = trueskill.TrueSkill()
    beliefs: dict[int, Skill] = {}
    plain: dict[int, trueskill.Rating] = {}
    for _ in range(300):
        players = iter(rnd.sample(range(40), 15))
        sides = [[next(players) for _ in range(rnd.randint(1, 3))] for _ in range(rnd.randint(2, 5))]
        places = [rnd.randint(1, len(sides)) for _ in sides]
        new = rate_skill([[(p, beliefs.get(p, DEFAULT_SKILL)) for p in side] for side in sides], places)
        rated = env.rate([tuple(plain.get(p, env.create_rating()) for p in side) for side in sides], ranks=places)
        for side, group in zip(sides, rated, strict=True):
            for p, r in zip(side, group, strict=True):
                assert new[p] == Skill(r.mu, r.sigma)
                beliefs[p], plain[p] = new[p], trueskill.Rating(new[p].mu, new[p].sigma)
