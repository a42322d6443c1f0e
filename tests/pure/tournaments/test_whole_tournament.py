"""A whole 5-round Swiss of 13 players at 4 seats (range 3-5), played through the pure rules: each round paired from
the standings before it, a ring voided after round 3. Checked against what docs/tournaments.md promises, by hand:
13 = 4+3+3+3 every round (no bye), no repeated table-mates where the search could avoid them, the void's changes."""

from __future__ import annotations

import random

from tournaments.pairing import pair_round
from tournaments.progress import explain, first_round_entrants, next_entrants
from tournaments.standings import TableRecord, Tally, standings


def test_thirteen_players_five_rounds_with_a_void():
    rng = random.Random(13)
    elo = {p: 1400 + 10 * p for p in range(1, 14)}
    tally = Tally(elo, table_size=4)
    table_id = 0
    entrants = first_round_entrants(elo)
    assert [e.player for e in entrants][:3] == [13, 12, 11]
    for rnd in range(1, 6):
        pairing = pair_round(entrants, 4, 3)
        # 13 players: 4+3+3+3; 12 after the void: 4+4+4. Never a bye.
        expected = [3, 3, 3, 4] if rnd <= 3 else [4, 4, 4]
        assert sorted(len(t.seats) for t in pairing.tables) == expected and pairing.byes == ()
        assert pairing.repeats == 0 or pairing.exact
        for table in pairing.tables:
            table_id += 1
            places = list(range(1, len(table.seats) + 1))
            rng.shuffle(places)
            tally.record(TableRecord(rnd, table_id, table.seats, tuple(places)))
        if rnd == 3:
            victim_table = next(t for t in tally.tables if t.round == 1 and len(t.seats) == 4)
            winner = victim_table.seats[victim_table.places.index(1)]
            tally.void(winner)
            # The voided winner of a 4-seat table: its other three close up from places 2, 3, 4 (4, 2, 0 points)
            # to places 1, 2, 3 at three seats, which pay 4, 2, 0 too.
            by = {line.player: line for line in tally.standings()}
            assert winner not in by
            label = f"table {victim_table.table}"
            for place, pts in ((2, 4), (3, 2), (4, 0)):
                p = victim_table.seats[victim_table.places.index(place)]
                assert [t[2] for t in by[p].point_terms if t[1] == label] == [pts]
            # At the winner's round-2 table, whoever was just behind the winner moves up one place.
            second = next(t for t in tally.tables if t.round == 2 and winner in t.seats)
            mine = second.places[second.seats.index(winner)]
            below = [p for p, q in zip(second.seats, second.places, strict=True) if q == mine + 1]
            n = len(second.seats) - 1
            for p in below:  # place mine+1 at n+1 seats becomes place mine at n seats: 2·(n−mine)
                assert [t[2] for t in by[p].point_terms if t[1] == f"table {second.table}"] == [2 * (n - mine)]
        lines = tally.standings()
        assert lines == standings(elo, tally.tables, [], 4, tally.removed)
        entrants = next_entrants(lines, tally.tables, [])
    assert len(entrants) == 12
    # Every explanation adds up.
    for line in tally.standings():
        shown = explain(line)
        assert shown["points"]["total"] == sum(t["points"] for t in shown["points"]["terms"])
        assert shown["buchholz"]["total"] == sum(t["points"] for t in shown["buchholz"]["terms"])
        assert shown["opponents_elo"]["sum"] == sum(t["start_elo"] for t in shown["opponents_elo"]["terms"])
        assert shown["head_to_head"]["total"] == sum(t["score"] for t in shown["head_to_head"]["terms"])


def test_explain_of_the_docs_example():
    elo = {1: 1600, 2: 1550, 3: 1500, 4: 1450, 5: 1400}
    tables = [
        TableRecord(1, 11, (1, 2, 3), (2, 1, 3)),
        TableRecord(1, 12, (4, 5), (1, 2)),
        TableRecord(2, 21, (2, 4, 1), (1, 2, 2)),
        TableRecord(2, 22, (3, 5), (2, 1)),
    ]
    line = next(line for line in standings(elo, tables, [], 3) if line.player == 1)
    shown = explain(line)
    assert shown["rank"] == 2
    assert shown["points"] == {
        "total": 3,
        "terms": [{"round": 1, "from": "table 11", "points": 2}, {"round": 2, "from": "table 21", "points": 1}],
    }
    assert [t["points"] for t in shown["buchholz"]["terms"]] == [8, 0, 8, 3]
    assert shown["opponents_elo"] == {
        "average": 1512.5,
        "sum": 6050,
        "count": 4,
        "terms": [
            {"round": 1, "table_mate": 2, "start_elo": 1550},
            {"round": 1, "table_mate": 3, "start_elo": 1500},
            {"round": 2, "table_mate": 2, "start_elo": 1550},
            {"round": 2, "table_mate": 4, "start_elo": 1450},
        ],
    }
