"""Edges of the moderation rules that mutation testing (docs/testing.md) found unpinned; values worked by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from moderation.rules import (
    PairStats,
    close_pairs,
    flag_score,
    has_new_evidence,
    is_suspect,
    link_weight,
    pair_stats,
    report_score,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)
DAY = timedelta(days=1)


def test_a_probe_looks_past_its_own_player_and_past_players_out_of_reach():
    # Players 1 (100 days earlier: out of the 30-day window), 2 (same day) and 3 probing: the search goes on
    # past its own entry and past player 1, and finds 2.
    uses = [(3, T0 + DAY), (1, T0 - 100 * DAY), (2, T0)]
    assert {k: (s.first, s.last) for k, s in close_pairs(uses, new=[(3, T0 + DAY)]).items()} == {(2, 3): (T0, T0 + DAY)}
    # Probing player 1's use itself (listed first): its own entry is skipped, not the end of the search.
    uses = [(1, T0), (2, T0 + DAY)]
    assert set(close_pairs(uses, new=[(1, T0)])) == {(1, 2)}


def test_a_span_runs_to_the_last_use_in_the_window():
    # Player 2 used the hash on day 1 and day 2, both within 30 days of player 1's use on day 0.
    spans = close_pairs([(1, T0), (2, T0 + DAY), (2, T0 + 2 * DAY)], new=[(1, T0)])
    assert (spans[(1, 2)].first, spans[(1, 2)].last) == (T0, T0 + 2 * DAY)


def test_an_unknown_kind_of_link_weighs_as_an_address():
    assert link_weight("cookie", 1) == 0.8
    assert link_weight("device", 8) == 0.5  # 1.0 x 4 / 8


def test_just_under_eighty_percent_is_not_suspect():
    # 397 of 500 = 79.4 % (< 80 %): neither the win share nor the concentration may round up.
    assert not is_suspect(PairStats(shared_games=500, wins=397, shared_any=500, feeder_games=500))
    assert not is_suspect(PairStats(shared_games=5, wins=5, shared_any=397, feeder_games=500))
    assert is_suspect(PairStats(shared_games=500, wins=400, shared_any=400, feeder_games=500))
    # A feeder with no games at all is nobody's feeder.
    assert not is_suspect(PairStats(shared_games=5, wins=5, shared_any=5, feeder_games=0))


def test_every_win_counts():
    games = [(1, "wizard", 1, 2), (2, "wizard", 1, 3), (3, "wizard", 2, 1), (4, "tokaido", 1, 2)]
    stats = pair_stats(games, "wizard", feeder_games=10)
    assert (stats.shared_games, stats.wins, stats.shared_any, stats.game_ids) == (3, 2, 4, [1, 2, 3])


def test_scores_keep_three_decimals():
    assert flag_score([1.23456], 0.0) == 1.235  # x (1 + log1p(0) / 10) = x 1
    assert report_score(record=0.123456, reason="other") == 1.235
    assert report_score(record=0.123456, reason="kingmaking") == 2.235


def test_the_same_evidence_is_not_new():
    assert not has_new_evidence([1, 2], [1, 2])
    assert not has_new_evidence([1, 2, 3], [1, 2])
    assert has_new_evidence([1, 2], [1, 2, 4])
