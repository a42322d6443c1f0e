"""The pure rules of a board: shared ranks within a slice and the window around a player."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from leaderboards.board import Row, active_cutoff, assign_ranks, is_eligible, window_start

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def rows(*elos: float) -> list[Row]:
    return [Row(player_id=i, player=f"p{i}", elo=elo, games=5) for i, elo in enumerate(elos)]


def test_ties_share_a_rank_and_the_next_rank_skips():
    assert [e.rank for e in assign_ranks(rows(2000, 1900, 1900, 1800), start=0, first_rank=1)] == [1, 2, 2, 4]


def test_a_slice_that_starts_inside_a_tie_keeps_the_shared_rank():
    # Positions 2..4 of 2000, 1900, 1900, 1900, 1800: the first row ties two players above it.
    entries = assign_ranks(rows(1900, 1900, 1800), start=2, first_rank=2)
    assert [e.rank for e in entries] == [2, 2, 5]


@pytest.mark.parametrize(
    ("position", "total", "limit", "start"),
    [
        (10, 100, 11, 5),  # centred: 5 above, 5 below
        (0, 100, 11, 0),  # at the top: the window starts at the top
        (3, 100, 11, 0),
        (99, 100, 11, 89),  # at the bottom: shifted up to stay full
        (5, 7, 11, 0),  # board smaller than the window
        (10, 100, 10, 6),  # even: 4 above, 5 below
        (10, 100, 1, 10),
    ],
)
def test_window_is_centred_and_stays_inside_the_board(position, total, limit, start):
    assert window_start(position=position, total=total, limit=limit) == start


@pytest.mark.parametrize(
    ("games", "days", "banned", "eligible"),
    [
        (5, 1, False, True),
        (4, 1, False, False),
        (5, 89, False, True),
        (5, 91, False, False),
        (5, 1, True, False),
    ],
)
def test_eligibility(games, days, banned, eligible):
    cutoff = active_cutoff(NOW)
    assert is_eligible(games=games, last_game_at=NOW - timedelta(days=days), banned=banned, cutoff=cutoff) is eligible


def test_no_last_game_is_not_eligible():
    assert not is_eligible(games=9, last_game_at=None, banned=False, cutoff=active_cutoff(NOW))
