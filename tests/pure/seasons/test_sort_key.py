"""The Redis copy's order key (docs/seasons.md "Standings in Redis"): byte order of ``sort_key`` + padded id is the
standings' order, league high to low, score high to low, player id low to high; equal keys exactly for equal
(tier, score), which is what makes ranks shared."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from seasons.standings_redis import KEY_WIDTH, member, sort_key

tiers = st.integers(min_value=-1, max_value=5)
scores = st.one_of(
    st.integers(min_value=0, max_value=5000).map(float),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False),
)
players = st.lists(st.tuples(tiers, scores, st.integers(min_value=1, max_value=10**12 - 1)), max_size=40)


@given(players)
def test_byte_order_is_the_standings_order(rows):
    by_bytes = sorted(rows, key=lambda r: member(sort_key(r[0], r[1]), r[2]))
    by_rules = sorted(rows, key=lambda r: (-r[0], -r[1], r[2]))
    assert [(t, s + 0.0, p) for t, s, p in by_bytes] == [(t, s + 0.0, p) for t, s, p in by_rules]


@given(tiers, scores, tiers, scores)
def test_equal_keys_exactly_for_equal_tier_and_score(t1, s1, t2, s2):
    assert len(sort_key(t1, s1)) == KEY_WIDTH
    assert (sort_key(t1, s1) == sort_key(t2, s2)) == ((t1, s1) == (t2, s2))


def test_worked_order():
    # elite by Elo, then diamond by points, then bronze, then placement; 1530.0 > 1494.87 within elite.
    keys = [sort_key(5, 1530.0), sort_key(5, 1494.87), sort_key(4, 900.0), sort_key(0, 40.0), sort_key(-1, 60.0)]
    assert keys == sorted(keys)
