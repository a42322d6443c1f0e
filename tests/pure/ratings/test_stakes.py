"""Stakes of a formed table (docs/matchmaking.md), by hand from docs/ratings.md's formula."""

from __future__ import annotations

import pytest

from ratings.elo import Standing
from ratings.hanabi import load_default_table
from ratings.stakes import Stake, competitive_stakes, hanabi_stakes


def test_four_new_players_stand_to_win_45_or_lose_45():
    # Example 2 of docs/ratings.md: alone first, three duels won, 60 · 0.5 · (3 × 0.5) = +45; alone last −45.
    players = [(name, Standing(1500.0, 0)) for name in "abcd"]
    assert competitive_stakes(players, 4) == {name: Stake(45.0, -45.0) for name in "abcd"}


def test_two_players_of_unequal_rating():
    # Example 3: A 1600 (K 20) vs B 1400 (K 60), E(A, B) = 0.759747.
    # A first: 20 · (1 − 0.759747) = +4.80506; A last: 20 · (0 − 0.759747) = −15.19494.
    # B first: 60 · (1 − 0.240253) = +45.58482; B last: 60 · (0 − 0.240253) = −14.41518.
    stakes = competitive_stakes([("A", Standing(1600.0, 25)), ("B", Standing(1400.0, 5))], 4)
    assert stakes["A"].best == pytest.approx(4.80506, abs=1e-4)
    assert stakes["A"].worst == pytest.approx(-15.19494, abs=1e-4)
    assert stakes["B"].best == pytest.approx(45.58482, abs=1e-4)
    assert stakes["B"].worst == pytest.approx(-14.41518, abs=1e-4)


def test_five_players_share_the_same_stake_as_four():
    # Example 8: P(5) = 0.375, 60 · 0.375 · (4 × 0.5) = +45.
    players = [(f"p{i}", Standing(1500.0, 0)) for i in range(5)]
    assert competitive_stakes(players, 4)["p0"] == Stake(45.0, -45.0)


def test_hanabi_stakes_at_the_threshold_and_a_perfect_score():
    # Three new players, normal deck: threshold 18 → B = 1100 for 3 players: E(1500, 1100) = 1 / (1 + 10^−1)
    # = 0.909091, 60 · (0.5 − 0.909091) = −24.54545. Perfect 25 → B = 2000: E(1500, 2000) = 1 / (1 + 10^1.25)
    # = 0.053240, tie: 60 · (0.5 − 0.053240) = +26.80559.
    stakes = hanabi_stakes([(p, Standing(1500.0, 0)) for p in "abc"], "normal", load_default_table())
    assert stakes["a"].worst == pytest.approx(-24.54545, abs=1e-4)
    assert stakes["a"].best == pytest.approx(26.80559, abs=1e-4)
