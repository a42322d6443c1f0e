"""docs/ratings.md, "Where rating points come from": the small season worked by hand, then the ledger adding up
exactly over random seasons with quits, floors, resets and voids (checked against the ratings themselves)."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.elo import EloConfig, Standing, rate_sides
from ratings.ledger import Flow, daily, game_parts, median, reset_parts, void_parts

DAY1, DAY2 = date(2026, 11, 1), date(2026, 11, 2)


def test_the_small_season_by_hand() -> None:
    # Floor 1440. Day 1: A beats B, both new: A +30, B −30 (duel).
    # Day 2: B quits against A (1530 v 1470, both 1 game, K 60): E(1470, 1530) = 0.414501;
    #   A: 60 × (1 − 0.585499) = +24.8701 (duel); B: 60 × (0 − 0.414501) − 10 = −34.8701 → 1435.1299, below the
    #   floor: stops at 1440, delta −30. B's parts: duel −24.8701, quit_penalty −10, floor +4.8701.
    #   Then a moderator resets A (1554.8701 → 1500): reset −54.8701.
    entries = [
        (DAY1, game_parts(delta=30.0, unfloored=30.0, penalty=0.0)),
        (DAY1, game_parts(delta=-30.0, unfloored=-30.0, penalty=0.0)),
        (DAY2, game_parts(delta=24.87007927969143, unfloored=24.87007927969143, penalty=0.0)),
        (DAY2, game_parts(delta=-30.0, unfloored=-34.87007927969143, penalty=10.0)),
        (DAY2, reset_parts(delta=-54.87007927969143)),
    ]
    assert entries[3][1] == pytest.approx({"duel": -24.8701, "quit_penalty": -10.0, "floor": 4.8701}, abs=5e-5)
    ledger = daily(entries)
    assert ledger[DAY1] == {"duel": Flow(30.0, -30.0)}
    day2 = {source: (round(f.created, 4), round(f.destroyed, 4)) for source, f in ledger[DAY2].items()}
    assert day2 == {
        "duel": (24.8701, -24.8701),
        "quit_penalty": (0.0, -10.0),
        "floor": (4.8701, 0.0),
        "reset": (0.0, -54.8701),
    }
    # A ends at 1500, B at 1440: the pool lost 60 points, and so does the ledger.
    assert sum(f.net for flows in ledger.values() for f in flows.values()) == pytest.approx(-60.0, abs=1e-9)


def test_a_void_refunds_the_game_and_the_rebuild_moves_the_rest() -> None:
    # Voiding day 1's game of the season above and replaying: B's quit against A with both new (E = 0.5):
    # A +30 then reset to 1500 (0 overall, as before); B −30 − 10 = −40 → 1460, above the floor.
    # A: refunded −30 (its +30 given back), moved 0 → rebuild +30. B: refunded +30, moved 1460 − 1440 = +20 →
    # rebuild −10.
    assert void_parts(refunded=-30.0, moved=0.0) == {"void_refund": -30.0, "rebuild": 30.0}
    assert void_parts(refunded=30.0, moved=20.0) == {"void_refund": 30.0, "rebuild": -10.0}
    assert void_parts(refunded=0.0, moved=0.0) == {}


def test_hanabi_and_unknown_sources() -> None:
    assert game_parts(delta=-2.76, unfloored=-2.76, penalty=0.0, cooperative=True) == {"hanabot": -2.76}
    with pytest.raises(ValueError, match="unknown ledger source"):
        daily([(DAY1, {"bonus": 1.0})])


def test_median_of_active_ratings() -> None:
    assert median([]) is None
    assert median([1500.0, 1400.0, 1700.0]) == 1500.0
    assert median([1500.0, 1400.0, 1700.0, 1600.0]) == 1550.0


# ---- The property: for every day, the ledger's net equals how much all ratings moved that day --------------------

PLAYERS = ("p0", "p1", "p2", "p3", "p4")


def _apply(event: tuple, state: dict[str, Standing], config: EloConfig) -> dict[str, dict[str, float]]:
    """Apply one game or reset to ``state``; return each touched player's ledger parts."""
    if event[0] == "reset":
        player = event[1]
        before = state[player]
        state[player] = Standing(config.initial, before.games)
        return {player: reset_parts(delta=config.initial - before.rating)}
    _, seated, quitter = event
    sides = [[(p, state[p])] for p in seated]
    places = list(range(1, len(seated) + 1))
    changes = rate_sides(sides, places, 4, quitter, config)
    unfloored = rate_sides(sides, places, 4, quitter, replace(config, floor=None))
    out = {}
    for player, change in changes.items():
        state[player] = Standing(change.after, change.games_before + 1)
        out[player] = game_parts(
            delta=change.delta,
            unfloored=unfloored[player].delta,
            penalty=config.quit_penalty if player == quitter else 0.0,
        )
    return out


def _replay(events: list[tuple], config: EloConfig) -> dict[str, Standing]:
    state = {p: Standing(config.initial, 0) for p in PLAYERS}
    for event in events:
        _apply(event, state, config)
    return state


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 1440.0, 1480.0]))
def test_every_day_the_ledger_adds_up_to_the_ratings_movement(seed: int, floor: float | None) -> None:
    rnd = random.Random(seed)
    config = EloConfig(floor=floor)
    state = {p: Standing(config.initial, 0) for p in PLAYERS}
    applied: list[tuple] = []  # games and resets still standing, in order (what a rebuild replays)
    own: list[dict[str, float] | None] = []  # each applied event's own deltas (a game's, for a void's refund)
    entries: list[tuple[date, dict[str, float]]] = []
    totals = {}  # day -> sum of all ratings at the end of the day
    for day_number in range(1, rnd.randint(2, 6)):
        day = date(2026, 11, day_number)
        for _ in range(rnd.randint(1, 6)):
            roll = rnd.random()
            if roll < 0.12:
                event = ("reset", rnd.choice(PLAYERS))
                parts = _apply(event, state, config)
                applied.append(event)
                own.append(None)
                entries.extend((day, p) for p in parts.values())
            elif roll < 0.22 and any(o is not None for o in own):
                # Void a random standing game: give back its own deltas, rebuild the title without it.
                index = rnd.choice([i for i, o in enumerate(own) if o is not None])
                void_deltas = own.pop(index)
                applied.pop(index)
                rebuilt = _replay(applied, config)
                own = _own_deltas(applied, config)
                for p in PLAYERS:
                    parts = void_parts(refunded=-void_deltas.get(p, 0.0), moved=rebuilt[p].rating - state[p].rating)
                    entries.append((day, parts))
                state = rebuilt
            else:
                seated = rnd.sample(PLAYERS, rnd.randint(2, 4))
                quitter = rnd.choice(seated) if rnd.random() < 0.3 else None
                if quitter is not None:  # the rules place the quitter's side alone, last
                    seated = [p for p in seated if p != quitter] + [quitter]
                event = ("game", tuple(seated), quitter)
                before = {p: state[p].rating for p in seated}
                parts = _apply(event, state, config)
                applied.append(event)
                own.append({p: state[p].rating - before[p] for p in seated})
                entries.extend((day, p) for p in parts.values())
        totals[day] = sum(s.rating for s in state.values())
    ledger = daily(entries)
    previous = config.initial * len(PLAYERS)
    for day, total in totals.items():
        net = sum(flow.net for flow in ledger.get(day, {}).values())
        assert abs(net - (total - previous)) <= 1e-9
        previous = total


def _own_deltas(events: list[tuple], config: EloConfig) -> list[dict[str, float] | None]:
    """Each standing event's own deltas after a rebuild (a later void refunds what the game did in the replay)."""
    state = {p: Standing(config.initial, 0) for p in PLAYERS}
    out: list[dict[str, float] | None] = []
    for event in events:
        if event[0] == "reset":
            _apply(event, state, config)
            out.append(None)
            continue
        before = {p: state[p].rating for p in event[1]}
        _apply(event, state, config)
        out.append({p: state[p].rating - before[p] for p in event[1]})
    return out
