"""The live stage keeps one row a game (the seats' leagues before it), not a line a seat: a player's page rebuilds
the lines from those rows. These hold the rebuilt lines, and the live stage's word-free points, against the full
replay's own lines over random seasons (carry-over, ties, teams, placement)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.plan import RatedGame
from seasons.rules import SeasonPlay, SeasonRules, game_gains, game_points, player_lines, start_entry

T0 = datetime(2026, 10, 6, tzinfo=UTC)


def random_game(rnd: random.Random, gid: int, pool: list[int]) -> RatedGame:
    size = rnd.choice([2, 3, 4, 4])
    players = rnd.sample(pool, size)
    teams = size == 4 and rnd.random() < 0.3
    sides = [i % 2 for i in range(size)] if teams else list(range(size))
    count = 1 + max(sides)
    side_places = [rnd.randint(1, count) for _ in range(count)]
    seats = [(p, s, side_places[s], False) for p, s in zip(players, sides, strict=True)]
    return RatedGame(gid, count, None, T0 + timedelta(minutes=gid), None, seats)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 120))
def test_rebuilt_lines_equal_the_replays_lines(seed: int, count: int) -> None:
    rnd = random.Random(seed)
    pool = list(range(1, 12))
    carry = {p: rnd.randint(1, 5) for p in rnd.sample(pool, 3)}
    config = SeasonRules(placement_games=rnd.randint(0, 3))
    games = [random_game(rnd, gid, pool) for gid in range(1, count + 1)]
    full = SeasonPlay(rules=config, carry=carry)
    live = SeasonPlay(rules=config, carry=carry, keep_lines=False)
    for g in games:
        full.apply_game(g)
        live.apply_game(g)
    # The word-free path reaches the same entries and records the same leagues before each game.
    assert {p: (e.points, e.games, e.league) for p, e in live.entries.items()} == {
        p: (e.points, e.games, e.league) for p, e in full.entries.items()
    }
    assert live.leagues_before == full.leagues_before
    codes = dict(live.leagues_before)
    for pid in full.entries:
        mine = [(g, codes[g.id]) for g in games if any(seat[0] == pid for seat in g.seats)]
        rebuilt = player_lines(pid, start_entry(pid, carry.get(pid), config), mine)
        assert rebuilt == [line for line in full.lines if line.player_id == pid]


def test_points_by_hand_two_teams_and_a_free_for_all() -> None:
    """docs/seasons.md worked example 2: P (diamond 4) and Q (silver 1) beat R and S (platinum 3, 3): 2 x 8 = 16."""
    seats = [(1, 0, 1, False), (2, 0, 1, False), (3, 1, 2, False), (4, 1, 2, False)]
    assert game_gains(seats, [4, 1, 3, 3]) == [16, 16, 0, 0]
    assert [sum(p for *_, p in w) for w in game_points(seats, [4, 1, 3, 3])] == [16, 16, 0, 0]
    # Worked example 1: places 1, 2, 2, 4; A gold, B silver, C bronze, D in placement: 32, 15, 16, 0.
    seats = [(1, 0, 1, False), (2, 1, 2, False), (3, 2, 2, False), (4, 3, 4, False)]
    assert game_gains(seats, [2, 1, 0, None]) == [32, 15, 16, 0]
