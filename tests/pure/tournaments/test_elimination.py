"""Single elimination (docs/tournaments.md#elimination): the worked example by hand, and properties over random
brackets judged from the rules (every player seated once a round, byes to the top seeds, one loser out per table,
one champion), never from the module's own answers."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.elimination import bracket_order, pair, rounds_needed, standings
from tournaments.standings import TableRecord

# The docs' worked example: six players, seeds by start Elo 1: 1600 ... 6: 1350.
ELO = {1: 1600.0, 2: 1550.0, 3: 1500.0, 4: 1450.0, 5: 1400.0, 6: 1350.0}


def test_bracket_order_and_rounds():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert [rounds_needed(n) for n in (2, 3, 4, 5, 8, 9, 13)] == [1, 2, 2, 3, 3, 4, 4]


def test_the_worked_example():
    one = pair(ELO, [], (), 1)
    assert sorted(t.seats for t in one.tables) == [(3, 6), (4, 5)] and sorted(one.byes) == [1, 2]
    played = [TableRecord(1, 11, (4, 5), (2, 1)), TableRecord(1, 12, (3, 6), (1, 1))]  # 5 wins; a tie: seed 3
    two = pair(ELO, played, (), 2)
    assert sorted(tuple(sorted(t.seats)) for t in two.tables) == [(1, 5), (2, 3)] and two.byes == ()
    played += [TableRecord(2, 21, (1, 5), (2, 1)), TableRecord(2, 22, (2, 3), (1, 2))]
    final = pair(ELO, played, (), 3)
    assert [tuple(sorted(t.seats)) for t in final.tables] == [(2, 5)]
    played.append(TableRecord(3, 31, (5, 2), (2, 1)))
    lines = standings(ELO, played, (), 3)
    assert [(line.player, line.points) for line in lines] == [(2, 3), (5, 2), (1, 1), (3, 1), (4, 0), (6, 0)]
    two_terms = [(r, what) for r, what, _ in lines[0].point_terms]
    assert two_terms == [(1, "bye"), (2, "table 22"), (3, "table 31")]


def test_a_no_show_sends_nobody_on_and_a_void_empties_the_slot():
    played = [TableRecord(1, 11, (4, 5), None), TableRecord(1, 12, (3, 6), (2, 1))]  # 4-5 no result; 6 wins
    two = pair(ELO, played, (), 2)
    assert [tuple(sorted(t.seats)) for t in two.tables] == [(2, 6)] and two.byes == (1,)  # 1 walks over
    voided = pair(ELO, played, {6}, 2)  # 6 voided after round 1: 2 walks over too, 3 stays out
    assert voided.tables == () and voided.byes == (1, 2)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 40), st.integers(0, 10**6))
def test_every_round_seats_each_player_left_once_and_ends_with_one_champion(n, seed):
    rng = random.Random(seed)
    elo = {p: float(rng.randint(1000, 2000)) for p in range(1, n + 1)}
    ranked = sorted(elo, key=lambda p: (-elo[p], p))
    played: list[TableRecord] = []
    alive = set(elo)
    total_rounds = rounds_needed(n)
    for number in range(1, total_rounds + 1):
        paired = pair(elo, played, (), number)
        seated = [p for t in paired.tables for p in t.seats] + list(paired.byes)
        assert sorted(seated) == sorted(alive)  # each player still in: once, at a table or on a bye
        assert all(len(t.seats) == 2 for t in paired.tables)
        if number == 1:  # 2^R - n byes, to the top seeds
            assert sorted(paired.byes) == sorted(ranked[: 2**total_rounds - n])
        else:
            assert paired.byes == ()
        for t in paired.tables:
            places = tuple(rng.choice([(1, 2), (2, 1), (1, 1)]))
            played.append(TableRecord(number, 1000 * number + t.board, t.seats, places))
            first = [p for p, q in zip(t.seats, places, strict=True) if q == 1]
            loser = next(p for p in t.seats if p != min(first, key=ranked.index))  # a tie: the higher seed on
            alive.discard(loser)
    assert len(alive) == 1 and len(played) == n - 1  # every table put one player out
    lines = standings(elo, played, (), total_rounds)
    assert lines[0].player in alive and lines[0].points == total_rounds
    assert [line.rank for line in lines] == list(range(1, n + 1))
    assert all(line.points == sum(pts for _, _, pts in line.point_terms) for line in lines)


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_seeds_one_and_two_meet_only_in_the_final_when_the_higher_seed_always_wins(n):
    elo = {p: 2000.0 - p for p in range(1, n + 1)}
    played: list[TableRecord] = []
    for number in range(1, rounds_needed(n) + 1):
        tables = pair(elo, played, (), number).tables
        for t in tables:
            if set(t.seats) == {1, 2}:
                assert number == rounds_needed(n)
            played.append(
                TableRecord(number, 100 * number + t.board, t.seats, (1, 2) if t.seats[0] < t.seats[1] else (2, 1))
            )
    assert [line.player for line in standings(elo, played, (), rounds_needed(n))][:2] == [1, 2]
