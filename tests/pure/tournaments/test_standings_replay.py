"""A tournament kept up record by record (``Tally``) equals its replay from the records (``standings``) after every
event: results, deadlines without a result, byes and voids in any order hypothesis draws."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.standings import ByeRecord, TableRecord, Tally, standings


@st.composite
def tournaments(draw):
    n = draw(st.integers(3, 9))
    elo = {p: draw(st.sampled_from([1400, 1450, 1500, 1550])) for p in range(1, n + 1)}
    events = []
    table_id = 0
    for rnd in range(1, draw(st.integers(1, 4)) + 1):
        order = draw(st.permutations(list(elo)))
        k = 0
        while len(order) - k >= 2:
            size = draw(st.integers(2, min(4, len(order) - k)))
            seats = tuple(order[k : k + size])
            k += size
            table_id += 1
            places = draw(st.none() | st.lists(st.integers(1, size), min_size=size, max_size=size).map(tuple))
            events.append(("table", TableRecord(rnd, table_id, seats, places)))
        for p in order[k:]:
            events.append(("bye", ByeRecord(rnd, p)))
        if draw(st.booleans()):
            events.append(("void", draw(st.sampled_from(list(elo)))))
    return elo, events


@settings(max_examples=150, deadline=None)
@given(tournaments())
def test_the_tally_equals_the_replay_at_every_moment(tournament):
    elo, events = tournament
    tally = Tally(elo, table_size=4)
    tables, byes, removed = [], [], []
    for kind, event in events:
        if kind == "table":
            tally.record(event)
            tables.append(event)
        elif kind == "bye":
            tally.bye(event)
            byes.append(event)
        else:
            tally.void(event)
            removed.append(event)
        assert tally.standings() == standings(elo, tables, byes, 4, removed)
