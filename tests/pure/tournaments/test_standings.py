"""The worked examples of docs/tournaments.md#points-and-standings, computed by hand there and typed in here."""

from __future__ import annotations

from fractions import Fraction

from tournaments.standings import ByeRecord, TableRecord, Tally, bye_points, place_points, standings


def test_points_by_place():
    assert place_points([1, 2, 3, 4]) == [6, 4, 2, 0]
    assert place_points([1, 2, 2, 4]) == [6, 3, 3, 0]
    assert place_points([1, 1, 3]) == [3, 3, 0]
    assert place_points([2, 1]) == [0, 2]
    assert bye_points(4) == 6


# The docs' example tournament: five players, 3-seat tables (range 2-4), two rounds.
ELO = {1: 1600, 2: 1550, 3: 1500, 4: 1450, 5: 1400}
R1 = [TableRecord(1, 11, (1, 2, 3), (2, 1, 3)), TableRecord(1, 12, (4, 5), (1, 2))]
R2 = [TableRecord(2, 21, (2, 4, 1), (1, 2, 2)), TableRecord(2, 22, (3, 5), (2, 1))]


def test_the_docs_example_standings():
    lines = standings(ELO, R1 + R2, [], table_size=3)
    by = {line.player: line for line in lines}
    # Round 1: table 11 gives 2:4, 1:2, 3:0; table 12 (two seats) gives 4:2, 5:0.
    # Round 2: table 21 gives 2:4, 4 and 1 tie for second: 2·3-(2+3) = 1 each; table 22 gives 5:2, 3:0.
    assert {p: by[p].points for p in ELO} == {1: 3, 2: 8, 3: 0, 4: 3, 5: 2}
    # Buchholz of 1: round 1 mates 2 (8) and 3 (0), round 2 mates 2 (8) and 4 (3) = 19.
    assert by[1].buchholz == 19 and sum(t[2] for t in by[1].buchholz_terms) == 19
    # Buchholz of 4: 5 (2), then 2 (8) and 1 (3) = 13.
    assert by[4].buchholz == 13
    # 1 and 4 both have 3 points; 1 is ahead on Buchholz.
    assert [line.player for line in lines] == [2, 1, 4, 5, 3]
    # Table-mates' average start Elo of 1: (1550 + 1500 + 1550 + 1450) / 4 = 1512.5.
    assert by[1].opponents_elo == Fraction(30250, 20)


def test_head_to_head_breaks_a_tie_the_others_leave():
    elo = {1: 1500, 2: 1500, 3: 1500, 4: 1500}
    tables = [
        TableRecord(1, 1, (1, 2), (2, 1)),
        TableRecord(1, 2, (3, 4), (1, 2)),
        TableRecord(2, 3, (1, 3), (1, 2)),
        TableRecord(2, 4, (2, 4), (2, 1)),
        TableRecord(3, 5, (1, 4), (1, 2)),
        TableRecord(3, 6, (2, 3), (1, 2)),
    ]
    lines = standings(elo, tables, [], table_size=2)
    by = {line.player: line for line in lines}
    # Points: 1 lost, won, won = 4; 2 won, lost, won = 4; 3: won, lost, lost = 2; 4: lost, won, lost = 2.
    assert (by[1].points, by[2].points, by[3].points, by[4].points) == (4, 4, 2, 2)
    # Buchholz 1: 2+2... 1 met 2 (4), 3 (2), 4 (2) = 8; 2 met 1 (4), 4 (2), 3 (2) = 8: level, same Elo.
    assert by[1].buchholz == by[2].buchholz == 8
    # Head-to-head: 2 beat 1 in round 1.
    assert by[2].head_to_head == 1 and by[1].head_to_head == -1
    assert [line.player for line in lines][:2] == [2, 1]


def test_a_bye_scores_the_best_full_table_and_no_show_tables_score_nothing():
    elo = {1: 1500, 2: 1500, 3: 1500}
    lines = standings(elo, [TableRecord(1, 1, (1, 2), None)], [ByeRecord(1, 3)], table_size=2)
    assert {line.player: line.points for line in lines} == {1: 0, 2: 0, 3: 2}


def test_a_void_closes_the_places_up():
    # Table of four, places 1..4 for players 1..4: 6, 4, 2, 0. Player 2 voided: 1, 3, 4 now at three seats,
    # places 1, 2, 3: 4, 2, 0.
    elo = dict.fromkeys(range(1, 5), 1500)
    record = TableRecord(1, 1, (1, 2, 3, 4), (1, 2, 3, 4))
    tally = Tally(elo, table_size=4)
    tally.record(record)
    assert tally.void(2) == [(1, 6, 4)]
    changes = tally.void(2)
    assert changes == []  # voided once only
    assert {line.player: line.points for line in tally.standings()} == {1: 4, 3: 2, 4: 0}
    assert {line.player: line.points for line in standings(elo, [record], [], 4, removed=[2])} == {1: 4, 3: 2, 4: 0}


def test_the_change_list_of_a_void():
    elo = dict.fromkeys(range(1, 5), 1500)
    tally = Tally(elo, table_size=4)
    tally.record(TableRecord(1, 1, (1, 2, 3, 4), (1, 2, 3, 4)))
    # 1: 6 -> 4; 3: 2 -> 2 (unchanged, third of four and second of three both pay 2); 4: 0 -> 0.
    assert tally.void(2) == [(1, 6, 4)]
