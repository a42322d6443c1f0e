"""Elo rules of docs/ratings.md. Every expected number is typed in (from the spec or worked by hand), never
computed by the code under test: players check these figures by hand."""

import pytest

from ratings.elo import (
    DEFAULT,
    Change,
    EloConfig,
    Standing,
    expected,
    k_factor,
    level,
    multiplier,
    rate_sides,
)

NEW = Standing(1500.0, 0)


def shown(x: float) -> float:
    """What the API displays: 2 decimals."""
    return round(x, 2)


def solo_sides(*standings: Standing) -> list[list[tuple[str, Standing]]]:
    """One side per player, keyed "a", "b", "c", ..."""
    return [[(chr(ord("a") + i), st)] for i, st in enumerate(standings)]


def check(change: Change, before: float, after: float, delta: float) -> None:
    assert change.before == before
    assert change.after == pytest.approx(after, abs=0.01)
    assert change.delta == pytest.approx(delta, abs=0.01)
    assert shown(change.after) == after
    assert shown(change.delta) == delta
    # Stored unrounded, and consistent.
    assert change.after == pytest.approx(change.before + change.delta, abs=1e-9)


# ---- Worked examples of docs/ratings.md ---------------------------------------------------------------


def test_example_1_two_new_players():
    # K = 60, P = 1, E = 0.5 -> A 1530.00, B 1470.00.
    assert multiplier(2, 4) == 1.0
    assert expected(1500, 1500) == 0.5
    ch = rate_sides(solo_sides(NEW, NEW), [1, 2], recommended_sides=4)
    check(ch["a"], 1500.0, 1530.00, 30.00)
    check(ch["b"], 1500.0, 1470.00, -30.00)
    assert ch["a"].k == ch["b"].k == 60
    assert ch["a"].games_before == ch["b"].games_before == 0


def test_example_2_four_new_players_wizard():
    # P = 0.5; each pair E = 0.5. First: 60 * 0.5 * (0.5 + 0.5 + 0.5) = +45; second +15; third -15;
    # fourth -45.
    assert multiplier(4, 4) == 0.5
    ch = rate_sides(solo_sides(NEW, NEW, NEW, NEW), [1, 2, 3, 4], recommended_sides=4)
    assert [ch[k].delta for k in "abcd"] == pytest.approx([45.0, 15.0, -15.0, -45.0], abs=0.01)
    assert [ch[k].after for k in "abcd"] == pytest.approx([1545.0, 1515.0, 1485.0, 1455.0], abs=0.01)


def test_example_3_unequal_players_and_k():
    # A 1600 with 25 games (K 20) beats B 1400 with 5 games (K 60): E(A,B) = 0.759747;
    # A: 20 * 0.240253 = +4.81 -> 1604.81; B: 60 * (0 - 0.240253) = -14.42 -> 1385.58.
    assert expected(1600, 1400) == pytest.approx(0.759747, abs=1e-6)
    assert expected(1400, 1600) == pytest.approx(0.240253, abs=1e-6)
    ch = rate_sides(solo_sides(Standing(1600.0, 25), Standing(1400.0, 5)), [1, 2], recommended_sides=4)
    check(ch["a"], 1600.0, 1604.81, 4.81)
    check(ch["b"], 1400.0, 1385.58, -14.42)
    assert (ch["a"].k, ch["b"].k) == (20, 60)
    assert (ch["a"].games_before, ch["b"].games_before) == (25, 5)


def test_example_7_fourth_player_quits():
    # Example 2 with the fourth player marked quit: +45, +15, -15, -55.
    ch = rate_sides(solo_sides(NEW, NEW, NEW, NEW), [1, 2, 3, 4], recommended_sides=4, quitter="d")
    assert [ch[k].delta for k in "abcd"] == pytest.approx([45.0, 15.0, -15.0, -55.0], abs=0.01)
    check(ch["d"], 1500.0, 1445.00, -55.00)


def test_example_8_five_players_above_rec():
    # P = 2*3/(4*4) = 0.375: +45, +22.5, 0, -22.5, -45.
    assert multiplier(5, 4) == pytest.approx(0.375, abs=1e-12)
    ch = rate_sides(solo_sides(NEW, NEW, NEW, NEW, NEW), [1, 2, 3, 4, 5], recommended_sides=4)
    assert [ch[k].delta for k in "abcde"] == pytest.approx([45.0, 22.5, 0.0, -22.5, -45.0], abs=0.01)


def test_example_9_spades_partnerships():
    # Team {a, b} beats {c, d}: two sides, P = 1: a, b +30; c, d -30.
    sides = [[("a", NEW), ("b", NEW)], [("c", NEW), ("d", NEW)]]
    ch = rate_sides(sides, [1, 2], recommended_sides=2)
    assert [ch[k].delta for k in "abcd"] == pytest.approx([30.0, 30.0, -30.0, -30.0], abs=0.01)
    check(ch["a"], 1500.0, 1530.00, 30.00)
    check(ch["d"], 1500.0, 1470.00, -30.00)


# ---- K factor and multiplier ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("games", "k"),
    [(0, 60), (1, 60), (9, 60), (10, 40), (11, 40), (19, 40), (20, 20), (21, 20), (500, 20)],
)
def test_k_thresholds(games, k):
    assert k_factor(games) == k


def test_k_from_config():
    cfg = EloConfig(k_new=32, k_mid=24, k_settled=16, mid_from=5, settled_from=30)
    assert [k_factor(g, cfg) for g in (4, 5, 29, 30)] == [32, 24, 24, 16]


def test_config_rejects_misordered_thresholds():
    with pytest.raises(ValueError):
        EloConfig(mid_from=20, settled_from=10)


@pytest.mark.parametrize(
    ("n", "p"),
    [
        (2, 1.0),  # 2/2
        (3, 0.666667),  # 2/3
        (4, 0.5),  # 2/4
        (5, 0.375),  # 2*3/(4*4) = 6/16
        (6, 0.3),  # 2*3/(4*5) = 6/20
    ],
)
def test_multiplier_rec_4(n, p):
    assert multiplier(n, 4) == pytest.approx(p, abs=1e-6)


def test_total_at_stake_flat_above_rec():
    # n * P(n) * (n - 1) / 2 pairs ... simpler: P(n) * (n - 1) is flat above rec (= 2 * 3/4 = 1.5 for rec 4).
    assert [multiplier(n, 4) * (n - 1) for n in (4, 5, 6, 7)] == pytest.approx([1.5, 1.5, 1.5, 1.5])


def test_multiplier_rejects_solo_and_bad_rec():
    with pytest.raises(ValueError):
        multiplier(1, 4)
    with pytest.raises(ValueError):
        multiplier(3, 1)


# ---- Hand-worked cases ---------------------------------------------------------------------------


def test_three_players_unequal_ratings_and_k():
    # Wizard (rec 4), n = 3 -> P = 2/3. A 1600 (20 games, K 20), B 1500 (10 games, K 40),
    # C 1400 (9 games, K 60); places A 3, B 1, C 2.
    # E(1600,1500) = E(1500,1400) = 0.640065, E(1600,1400) = 0.759747.
    # A: (0 - 0.640065) + (0 - 0.759747) = -1.399812 -> 20 * 2/3 * -1.399812 = -18.66 -> 1581.34
    # B: (1 - 0.359935) + (1 - 0.640065) = 1.000000 -> 40 * 2/3 * 1 = +26.67 -> 1526.67
    # C: (1 - 0.240253) + (0 - 0.359935) = 0.399812 -> 60 * 2/3 * 0.399812 = +15.99 -> 1415.99
    sides = solo_sides(Standing(1600.0, 20), Standing(1500.0, 10), Standing(1400.0, 9))
    ch = rate_sides(sides, [3, 1, 2], recommended_sides=4)
    check(ch["a"], 1600.0, 1581.34, -18.66)
    check(ch["b"], 1500.0, 1526.67, 26.67)
    check(ch["c"], 1400.0, 1415.99, 15.99)
    assert [ch[k].k for k in "abc"] == [20, 40, 60]


def test_two_player_draw_is_everyone_tied():
    # A draw between the only two sides is "everyone tied": no change even though classic Elo would move
    # A 1600 (K 20) by 20 * (0.5 - 0.759747) = -5.19 and B 1400 (K 60) by +15.58.
    ch = rate_sides(solo_sides(Standing(1600.0, 25), Standing(1400.0, 5)), [1, 1], recommended_sides=4)
    assert ch["a"] == Change(1600.0, 1600.0, 0.0, 20, 25)
    assert ch["b"] == Change(1400.0, 1400.0, 0.0, 60, 5)


def test_partial_tie_moves_unequal_ratings():
    # A 1600 (25 games, K 20) and B 1400 (5 games, K 60) tie for first, C 1500 (new, K 60) is last.
    # n = 3 > rec = 2 -> P = 2*1/(2*2) = 0.5. E(1600,1400) = 0.759747, E(1600,1500) = E(1500,1400) = 0.640065.
    # A: 20 * 0.5 * ((0.5 - 0.759747) + (1 - 0.640065)) = 10 * 0.100188 = +1.00 -> 1601.00
    # B: 60 * 0.5 * ((0.5 - 0.240253) + (1 - 0.359935)) = 30 * 0.899812 = +26.99 -> 1426.99
    # C: 60 * 0.5 * ((0 - 0.359935) + (0 - 0.640065)) = 30 * -1.000000 = -30.00 -> 1470.00
    ch = rate_sides(solo_sides(Standing(1600.0, 25), Standing(1400.0, 5), NEW), [1, 1, 2], recommended_sides=2)
    check(ch["a"], 1600.0, 1601.00, 1.00)
    check(ch["b"], 1400.0, 1426.99, 26.99)
    check(ch["c"], 1500.0, 1470.00, -30.00)


def test_team_game_unequal_teammates():
    # Spades partnerships (rec 2 teams, n = 2, P = 1). Team {a 1700 (30 games, K 20), b 1500 (3 games, K 60)}
    # has mean 1600; team {c 1450 (15 games, K 40), d 1550 (0 games, K 60)} has mean 1500.
    # E(1600, 1500) = 0.640065; ab wins: S - E = 0.359935.
    # a: 20 * 0.359935 = +7.20 -> 1707.20; b: 60 * 0.359935 = +21.60 -> 1521.60
    # c: 40 * -0.359935 = -14.40 -> 1435.60; d: 60 * -0.359935 = -21.60 -> 1528.40
    sides = [
        [("a", Standing(1700.0, 30)), ("b", Standing(1500.0, 3))],
        [("c", Standing(1450.0, 15)), ("d", Standing(1550.0, 0))],
    ]
    ch = rate_sides(sides, [1, 2], recommended_sides=2)
    check(ch["a"], 1700.0, 1707.20, 7.20)
    check(ch["b"], 1500.0, 1521.60, 21.60)
    check(ch["c"], 1450.0, 1435.60, -14.40)
    check(ch["d"], 1550.0, 1528.40, -21.60)
    assert [ch[k].k for k in "abcd"] == [20, 60, 40, 60]


def test_quitter_inside_team_only_quitter_pays():
    # Four new players in partnerships; d quits, so team {c, d} is last (even if it scored more):
    # a, b +30; c -30; d -30 - 10 = -40.
    sides = [[("a", NEW), ("b", NEW)], [("c", NEW), ("d", NEW)]]
    ch = rate_sides(sides, [1, 2], recommended_sides=2, quitter="d")
    check(ch["a"], 1500.0, 1530.00, 30.00)
    check(ch["b"], 1500.0, 1530.00, 30.00)
    check(ch["c"], 1500.0, 1470.00, -30.00)
    check(ch["d"], 1500.0, 1460.00, -40.00)


def test_quit_penalty_from_config():
    ch = rate_sides(solo_sides(NEW, NEW), [1, 2], recommended_sides=2, quitter="b", config=EloConfig(quit_penalty=25.0))
    check(ch["b"], 1500.0, 1445.00, -55.00)


def test_quitter_must_be_alone_last():
    with pytest.raises(ValueError):
        rate_sides(solo_sides(NEW, NEW, NEW), [1, 2, 3], recommended_sides=4, quitter="a")
    with pytest.raises(ValueError):
        rate_sides(solo_sides(NEW, NEW, NEW), [1, 2, 2], recommended_sides=4, quitter="c")
    with pytest.raises(ValueError):
        rate_sides(solo_sides(NEW, NEW), [1, 2], recommended_sides=4, quitter="zz")


def test_floor():
    # Floor 1480: B would drop to 1470 -> clamped at 1480, delta -20; A unaffected (+30).
    ch = rate_sides(solo_sides(NEW, NEW), [1, 2], recommended_sides=2, config=EloConfig(floor=1480.0))
    check(ch["a"], 1500.0, 1530.00, 30.00)
    check(ch["b"], 1500.0, 1480.00, -20.00)


def test_floor_applies_after_quit_penalty():
    # Example 7 with floor 1450: fourth -45 - 10 = -55 -> 1445 -> clamped at 1450, delta -50.
    four = solo_sides(NEW, NEW, NEW, NEW)
    ch = rate_sides(four, [1, 2, 3, 4], recommended_sides=4, quitter="d", config=EloConfig(floor=1450.0))
    check(ch["c"], 1500.0, 1485.00, -15.00)
    check(ch["d"], 1500.0, 1450.00, -50.00)


def test_no_floor_by_default():
    assert DEFAULT.floor is None
    ch = rate_sides(solo_sides(Standing(0.0, 30), Standing(0.0, 30)), [1, 2], recommended_sides=2)
    check(ch["b"], 0.0, -10.00, -10.00)


def test_everyone_tied_changes_nothing_but_counts():
    # Unequal ratings: the formula alone would move them; the spec says no rating changes.
    sides = solo_sides(Standing(1600.0, 25), Standing(1500.0, 12), Standing(1400.0, 3))
    ch = rate_sides(sides, [1, 1, 1], recommended_sides=4)
    assert ch == {
        "a": Change(1600.0, 1600.0, 0.0, 20, 25),
        "b": Change(1500.0, 1500.0, 0.0, 40, 12),
        "c": Change(1400.0, 1400.0, 0.0, 60, 3),
    }


def test_everyone_tied_teams():
    sides = [[("a", NEW), ("b", Standing(1700.0, 40))], [("c", NEW), ("d", NEW)]]
    ch = rate_sides(sides, [2, 2], recommended_sides=2)
    assert {k: c.delta for k, c in ch.items()} == {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0}
    assert ch["b"] == Change(1700.0, 1700.0, 0.0, 20, 40)


def test_places_need_not_be_dense():
    # Places 1, 3, 3 (two tied for second) equal places 1, 2, 2.
    a = rate_sides(solo_sides(NEW, NEW, NEW), [1, 3, 3], recommended_sides=4)
    b = rate_sides(solo_sides(NEW, NEW, NEW), [1, 2, 2], recommended_sides=4)
    assert a == b
    # First: 60 * 2/3 * (0.5 + 0.5) = +40; the tied two: 60 * 2/3 * (-0.5 + 0) = -20 each.
    assert [a[k].delta for k in "abc"] == pytest.approx([40.0, -20.0, -20.0], abs=1e-9)


def test_solo_game_is_not_rated():
    with pytest.raises(ValueError):
        rate_sides(solo_sides(NEW), [1], recommended_sides=4)
    with pytest.raises(ValueError):
        rate_sides([], [], recommended_sides=4)


def test_malformed_input_refused():
    with pytest.raises(ValueError):
        rate_sides(solo_sides(NEW, NEW), [1], recommended_sides=4)
    with pytest.raises(ValueError):
        rate_sides([[("a", NEW)], []], [1, 2], recommended_sides=4)
    with pytest.raises(ValueError):
        rate_sides([[("a", NEW)], [("a", NEW)]], [1, 2], recommended_sides=4)


def test_change_is_frozen():
    ch = rate_sides(solo_sides(NEW, NEW), [1, 2], recommended_sides=2)
    with pytest.raises(AttributeError):
        ch["a"].after = 0.0  # type: ignore[misc]


# ---- Level ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "name"),
    [
        (1200.0, "Beginner"),
        (1499.99, "Beginner"),
        (1500.0, "Beginner"),  # d = 0
        (1500.3, "Apprentice"),  # 0 < d < 1: d > 0 is tested on d itself (see level's docstring)
        (1501.0, "Apprentice"),
        (1599.99, "Apprentice"),
        (1600.0, "Average"),
        (1699.5, "Average"),  # floor(199.5) = 199
        (1700.0, "Good"),
        (1799.99, "Good"),
        (1800.0, "Strong"),
        (1999.99, "Strong"),
        (2000.0, "Expert"),
        (2199.99, "Expert"),
        (2200.0, "Master"),
        (3000.0, "Master"),
    ],
)
def test_level_bands(rating, name):
    assert level(rating) == name


def test_level_relative_to_initial():
    assert level(1100.0, initial=1000.0) == "Average"
    assert level(1000.0, initial=1000.0) == "Beginner"
