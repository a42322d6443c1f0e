"""The pure rules of detection and of the report queue, at their edges, with numbers worked by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from moderation import rules
from moderation.rules import PairStats

T0 = datetime(2026, 6, 1, tzinfo=UTC)


def stats(games: int, wins: int, shared_any: int | None = None, feeder_games: int | None = None) -> PairStats:
    shared_any = games if shared_any is None else shared_any
    return PairStats(
        shared_games=games,
        wins=wins,
        shared_any=shared_any,
        feeder_games=shared_any if feeder_games is None else feeder_games,
    )


class TestSuspect:
    def test_five_shared_games_are_enough_four_are_not(self):
        assert rules.is_suspect(stats(5, 5))
        assert not rules.is_suspect(stats(4, 4))

    def test_win_share_80_percent_is_in_79_is_out(self):
        assert rules.is_suspect(stats(100, 80))
        assert not rules.is_suspect(stats(100, 79))
        assert rules.is_suspect(stats(5, 4))  # 4/5 = 80 % exactly
        assert not rules.is_suspect(stats(5, 3))  # 60 %

    def test_concentration_80_percent_is_in_79_is_out(self):
        assert rules.is_suspect(stats(10, 10, shared_any=80, feeder_games=100))
        assert not rules.is_suspect(stats(10, 10, shared_any=79, feeder_games=100))
        # 8 of 10 of F's games with B: in; 8 of 11 (72.7 %): out.
        assert rules.is_suspect(stats(8, 8, shared_any=8, feeder_games=10))
        assert not rules.is_suspect(stats(8, 8, shared_any=8, feeder_games=11))

    def test_an_honest_sibling_who_loses_a_lot_but_plays_others_is_not_suspect(self):
        # 20 games with the stronger sibling, lost 18, but 60 games in all: 33 % concentration.
        assert not rules.is_suspect(stats(20, 18, shared_any=20, feeder_games=60))

    def test_pair_stats_counts_strictly_above_only(self):
        rows = [
            (1, "wizard", 1, 2),
            (2, "wizard", 1, 1),
            (3, "wizard", 2, 1),
            (4, "nile", 1, 3),
            (5, "hanabi", None, None),
        ]
        s = rules.pair_stats(rows, "wizard", feeder_games=9)
        assert (s.shared_games, s.wins, s.shared_any, s.feeder_games) == (3, 1, 5, 9)
        assert s.game_ids == [1, 2, 3]
        assert s.win_share == pytest.approx(1 / 3)
        assert s.concentration == pytest.approx(5 / 9)

    def test_cooperative_games_have_no_above(self):
        assert not rules.above(None, None)
        assert not rules.above(1, 1)
        assert rules.above(1, 2)
        assert not rules.above(2, 1)


class TestLinks:
    def test_uses_29_days_apart_link_31_do_not(self):
        uses = [(1, T0), (2, T0 + timedelta(days=29))]
        assert set(rules.close_pairs(uses)) == {(1, 2)}
        assert rules.close_pairs([(1, T0), (2, T0 + timedelta(days=31))]) == {}

    def test_exactly_30_days_still_links(self):
        assert set(rules.close_pairs([(2, T0), (1, T0 + timedelta(days=30))])) == {(1, 2)}

    def test_span_and_new_probes(self):
        uses = [(1, T0), (2, T0 + timedelta(days=10)), (1, T0 + timedelta(days=20)), (3, T0 + timedelta(days=70))]
        spans = rules.close_pairs(uses)
        assert set(spans) == {(1, 2)}
        assert (spans[(1, 2)].first, spans[(1, 2)].last) == (T0, T0 + timedelta(days=20))
        # Only pairs through the new use are looked for: 3's new use is 50 days after 1's last.
        assert rules.close_pairs(uses, new=[(3, T0 + timedelta(days=70))]) == {}
        new = [(3, T0 + timedelta(days=45))]
        # 25 days after 1's use at day 20, 35 after 2's at day 10.
        assert set(rules.close_pairs([*uses, *new], new=new)) == {(1, 3)}

    def test_one_player_alone_makes_no_link(self):
        assert rules.close_pairs([(1, T0), (1, T0 + timedelta(days=1))]) == {}

    def test_crowded_hash_weighs_less(self):
        assert rules.link_weight("device", 2) == 1.0
        assert rules.link_weight("ip", 4) == 0.8
        assert rules.link_weight("ip", 8) == pytest.approx(0.4)  # 0.8 * 4/8
        assert rules.link_weight("device", 40) == pytest.approx(0.1)

    def test_crowded_is_more_than_50_accounts(self):
        assert not rules.is_crowded(50)
        assert rules.is_crowded(51)

    def test_a_crowded_hash_pairs_only_players_at_one_table(self):
        uses = [
            (1, T0, 100),
            (2, T0, 100),
            (3, T0, 100),
            (4, T0 + timedelta(days=1), 101),
            (5, T0, 102),
            (1, T0 + timedelta(days=2), 103),
            (2, T0 + timedelta(days=2), 103),
        ]
        spans = rules.table_pairs(uses)
        # Table 100 seats 1, 2 and 3 (three pairs); 101 and 102 are solo; 103 seats 1 and 2 again, two days on.
        assert set(spans) == {(1, 2), (1, 3), (2, 3)}
        assert (spans[(1, 2)].first, spans[(1, 2)].last) == (T0, T0 + timedelta(days=2))
        assert rules.table_pairs([(7, T0, 1), (7, T0, 1)]) == {}


class TestScore:
    def test_feeder_score_is_games_times_shares_times_weight(self):
        # 10 games, 9 won, 90 % concentration, through a device: 1.0 * 10 * 0.9 * 0.9 = 8.1.
        s = stats(10, 9, shared_any=9, feeder_games=10)
        assert rules.feeder_score(s, 1.0) == pytest.approx(8.1)
        assert rules.feeder_score(s, 0.1) == pytest.approx(0.81)

    def test_flag_score_adds_feeders_and_nudges_by_elo(self):
        assert rules.flag_score([8.1, 1.9], 0.0) == 10.0
        # log1p(e - 1) = 1: 10 * (1 + 1/10) = 11.
        assert rules.flag_score([10.0], 2.718281828459045 - 1) == pytest.approx(11.0)
        assert rules.flag_score([10.0], -50.0) == 10.0

    def test_new_evidence_is_a_game_not_seen_before(self):
        assert not rules.has_new_evidence([1, 2, 3], [1, 3])
        assert rules.has_new_evidence([1, 2, 3], [1, 4])


class TestReporterRecord:
    def test_neutral_until_three_resolved(self):
        assert rules.track_record(0, 0) == 0.5
        assert rules.track_record(2, 0) == 0.5
        assert rules.track_record(3, 0) == 1.0
        assert rules.track_record(1, 3) == 0.25

    def test_reliable_reporters_come_first(self):
        reliable = rules.report_score(record=1.0, reason="other")
        neutral = rules.report_score(record=0.5, reason="other")
        unreliable = rules.report_score(record=0.0, reason="kingmaking")
        assert (reliable, neutral, unreliable) == (10.0, 5.0, 1.0)
