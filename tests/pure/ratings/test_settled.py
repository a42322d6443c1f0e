"""docs/ratings.md, "How settled is a rating": the worked examples, typed in from the page (worked by hand)."""

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.elo import EloConfig
from ratings.settled import (
    Settledness,
    days_away,
    elo_band,
    elo_settledness,
    present,
    trueskill_settledness,
)

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(("games", "band"), [(0, 180.0), (9, 180.0), (10, 120.0), (19, 120.0), (20, 60.0), (500, 60.0)])
def test_band_is_three_times_the_next_k(games: int, band: float) -> None:
    assert elo_band(games) == band


def test_example_1_new_player_played_yesterday() -> None:
    assert elo_settledness(3, days=1) == Settledness(provisional=True, band=180.0, games_to_settle=17)


def test_example_2_mid_bracket() -> None:
    assert elo_settledness(15, days=0) == Settledness(provisional=True, band=120.0, games_to_settle=5)


def test_example_3_settled_100_days_away() -> None:
    found = elo_settledness(42, days=100)
    assert present(found) == {"provisional": False, "band": 78.10, "games_to_settle": 0}


def test_example_4_settled_a_year_away_is_provisional_again() -> None:
    found = elo_settledness(42, days=365)
    assert present(found) == {"provisional": True, "band": 112.81, "games_to_settle": 1}


def test_threshold_day_340_is_exactly_110_and_still_settled() -> None:
    assert elo_settledness(20, days=340) == Settledness(provisional=False, band=110.0, games_to_settle=0)
    assert present(elo_settledness(20, days=341)) == {"provisional": True, "band": 110.11, "games_to_settle": 1}


def test_example_5_growth_and_cap() -> None:
    assert round(elo_band(15, days=400), 2) == 156.20
    assert elo_band(15, days=1000) == 180.0


def test_example_6_trueskill() -> None:
    assert present(trueskill_settledness(2.0, days=365)) == {
        "provisional": False,
        "band": 2.56,
        "games_to_settle": None,
    }
    assert present(trueskill_settledness(4.0, days=300)) == {"provisional": True, "band": 4.25, "games_to_settle": None}
    assert present(trueskill_settledness(None)) == {"provisional": True, "band": 8.33, "games_to_settle": None}


def test_days_away_counts_whole_days_and_never_negative() -> None:
    assert days_away(None, NOW) == 0
    assert days_away(NOW - timedelta(days=2, hours=23), NOW) == 2
    assert days_away(NOW - timedelta(days=3), NOW) == 3
    assert days_away(NOW + timedelta(hours=5), NOW) == 0


def test_brackets_follow_a_configured_k() -> None:
    config = EloConfig(k_new=50, k_mid=30, k_settled=10, mid_from=5, settled_from=8)
    assert elo_settledness(4, config=config) == Settledness(provisional=True, band=150.0, games_to_settle=4)
    assert elo_settledness(8, config=config) == Settledness(provisional=False, band=30.0, games_to_settle=0)


@given(st.integers(0, 200), st.integers(0, 5000), st.integers(0, 5000))
def test_band_never_shrinks_with_time_and_never_passes_a_newcomers(games: int, d1: int, d2: int) -> None:
    early, late = sorted((d1, d2))
    assert elo_band(games, early) <= elo_band(games, late) <= 180.0


@given(st.integers(0, 200), st.integers(0, 5000))
def test_provisional_exactly_when_games_to_settle_is_positive(games: int, days: int) -> None:
    found = elo_settledness(games, days)
    assert found.provisional == (found.games_to_settle > 0)
    assert found.provisional == (found.band > 110)


def test_on_board_is_as_of_the_last_game_and_90_days_never_unsettle() -> None:
    from ratings.settled import on_board

    assert on_board(5) == {"provisional": True, "band": 180.0, "games_to_settle": 15}
    assert on_board(20) == {"provisional": False, "band": 60.0, "games_to_settle": 0}
    # The board's 90-day window: sqrt(3600 + 2250) = 76.49, still settled.
    assert present(elo_settledness(20, days=90)) == {"provisional": False, "band": 76.49, "games_to_settle": 0}


def test_on_board_answers_follow_the_config_and_each_caller_gets_its_own_dict() -> None:
    from ratings.settled import on_board

    first = on_board(20)
    first["band"] = -1.0  # a caller adding to or changing its entry must not change the next answer
    assert on_board(20) == {"provisional": False, "band": 60.0, "games_to_settle": 0}
    # Settled only from 30 games: 20 games is the middle bracket, K 40, band 120 (> 110: provisional), 10 to go.
    later = EloConfig(settled_from=30)
    assert on_board(20, later) == {"provisional": True, "band": 120.0, "games_to_settle": 10}
    assert on_board(20) == {"provisional": False, "band": 60.0, "games_to_settle": 0}
