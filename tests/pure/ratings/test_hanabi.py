"""Hanabi rules of docs/ratings.md (team against Hanabot). Expected numbers are typed in from the spec, from
hanabot.csv, or worked by hand in the comments."""

from pathlib import Path

import pytest

from ratings.elo import EloConfig, Standing, expected
from ratings.hanabi import (
    BELOW_THRESHOLD_BOT,
    DEFAULT_TABLE_PATH,
    LOSE_TO_WEAKEST,
    MAX_SCORE,
    THRESHOLD,
    TIE_WITH_1000,
    NotRatable,
    bot_duel,
    load_default_table,
    rate_team,
    variant_class,
)

REPO = Path(__file__).resolve().parents[3]
REPO_TABLE = REPO / "ratings" / "data" / "hanabot.csv"
NEW = Standing(1500.0, 0)


@pytest.fixture(scope="module")
def table():
    return load_default_table(REPO_TABLE)


def team(*standings: Standing) -> list[tuple[str, Standing]]:
    return [(chr(ord("a") + i), st) for i, st in enumerate(standings)]


def shown(x: float) -> float:
    return round(x, 2)


# ---- Table ---------------------------------------------------------------------------------------


def test_default_path_is_the_repo_copy(table):
    assert DEFAULT_TABLE_PATH == REPO_TABLE
    assert load_default_table() == table


# The shipped table is checked against the copy printed in docs/ratings.md by tests/pure/test_docs_content.py,
# which reads only files inside the repository.


def test_table_shape(table):
    # 50: scores 18..25, 60 / 60m: 21..30, each for team sizes 2..5.
    assert len(table) == 4 * 8 + 2 * 4 * 10
    for cls in ("50", "60", "60m"):
        for size in (2, 3, 4, 5):
            for score in range(THRESHOLD[cls], MAX_SCORE[cls] + 1):
                assert (cls, size, score) in table
    # Values typed in from hanabot.csv.
    assert table[("50", 3, 22)] == 1468.0
    assert table[("50", 2, 18)] == 1140.0
    assert table[("50", 2, 24)] == 1843.0
    assert table[("50", 2, 25)] == 2040.0
    assert table[("60m", 5, 30)] == 2180.0


def test_table_header_checked(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("class,size,score,elo\n50,2,18,1140\n")
    with pytest.raises(ValueError):
        load_default_table(bad)


# ---- Variant classes -----------------------------------------------------------------------------


def test_variant_classes():
    assert variant_class("normal") == "50"
    assert variant_class("tricky") == "60"
    assert variant_class("very_difficult") == "60m"
    assert (MAX_SCORE["50"], THRESHOLD["50"]) == (25, 18)
    assert (MAX_SCORE["60"], THRESHOLD["60"]) == (30, 21)
    assert (MAX_SCORE["60m"], THRESHOLD["60m"]) == (30, 21)


def test_hard_cannot_be_rated():
    with pytest.raises(NotRatable):
        variant_class("hard")
    assert issubclass(NotRatable, ValueError)


def test_unknown_deck():
    with pytest.raises(ValueError):
        variant_class("rainbow")


# ---- Worked examples 4-6 of docs/ratings.md ---------------------------------------------------------------------


def test_example_4_class_50_three_players_score_22(table):
    # B = 1468 for (50, 3, 22); E(1500, 1468) = 0.545922; delta = 60 * (0.5 - 0.545922) = -2.76 each.
    assert bot_duel(table, "50", 3, 22) == (1468.0, 0.5)
    assert expected(1500, 1468) == pytest.approx(0.545922, abs=1e-6)
    ch = rate_team(team(NEW, NEW, NEW), "50", 22, table)
    assert set(ch) == {"a", "b", "c"}
    for c in ch.values():
        assert c.delta == pytest.approx(-2.76, abs=0.01)
        assert shown(c.delta) == -2.76
        assert shown(c.after) == 1497.24
        assert c.k == 60


def test_example_5_below_threshold(table):
    # Score 12 (< 18): B = 1000, E = 0.946760, delta = 60 * (0.5 - 0.946760) = -26.81 each.
    assert bot_duel(table, "50", 2, 12) == (BELOW_THRESHOLD_BOT, 0.5)
    assert BELOW_THRESHOLD_BOT == 1000.0
    assert expected(1500, 1000) == pytest.approx(0.946760, abs=1e-6)
    ch = rate_team(team(NEW, NEW), "50", 12, table)
    for c in ch.values():
        assert c.delta == pytest.approx(-26.81, abs=0.01)
        assert shown(c.delta) == -26.81
        assert shown(c.after) == 1473.19


def test_example_6_perfect_score(table):
    # Two players at 2100 with 30 games (K 20), score 25: B = 2040, E = 0.585499, 0.5 - E < 0 so S = 1:
    # delta = 20 * (1 - 0.585499) = +8.29 each.
    strong = Standing(2100.0, 30)
    assert bot_duel(table, "50", 2, 25) == (2040.0, 0.5)
    assert expected(2100, 2040) == pytest.approx(0.585499, abs=1e-6)
    ch = rate_team(team(strong, strong), "50", 25, table)
    for c in ch.values():
        assert c.k == 20
        assert c.delta == pytest.approx(8.29, abs=0.01)
        assert shown(c.delta) == 8.29
        assert shown(c.after) == 2108.29


def test_example_6_score_24(table):
    # With score 24, B = 1843, E = 0.814484, delta = 20 * (0.5 - 0.814484) = -6.29 each.
    strong = Standing(2100.0, 30)
    assert bot_duel(table, "50", 2, 24) == (1843.0, 0.5)
    assert expected(2100, 1843) == pytest.approx(0.814484, abs=1e-6)
    ch = rate_team(team(strong, strong), "50", 24, table)
    for c in ch.values():
        assert c.delta == pytest.approx(-6.29, abs=0.01)
        assert shown(c.delta) == -6.29
        assert shown(c.after) == 2093.71


# ---- Hand-worked cases ---------------------------------------------------------------------------


def test_lose_to_weakest_rule(table):
    # Class 50, 2 new players, score 12: B = table[(50, 2, 18)] = 1140, S = 0.
    # E(1500, 1140) = 1 / (1 + 10 ** (-360 / 400)) = 1 / (1 + 0.125893) = 0.888184
    # delta = 60 * (0 - 0.888184) = -53.29 each -> 1446.71.
    assert bot_duel(table, "50", 2, 12, LOSE_TO_WEAKEST) == (1140.0, 0.0)
    ch = rate_team(team(NEW, NEW), "50", 12, table, below_rule=LOSE_TO_WEAKEST)
    for c in ch.values():
        assert c.delta == pytest.approx(-53.29, abs=0.01)
        assert shown(c.after) == 1446.71


def test_rule_names():
    assert TIE_WITH_1000 == "tie_with_1000"
    assert LOSE_TO_WEAKEST == "lose_to_weakest"


def test_unknown_rule_refused(table):
    with pytest.raises(ValueError):
        bot_duel(table, "50", 2, 12, "be_nice")


def test_rule_irrelevant_at_threshold(table):
    # At the threshold score the table applies under both rules.
    assert bot_duel(table, "50", 2, 18, LOSE_TO_WEAKEST) == (1140.0, 0.5)
    assert bot_duel(table, "50", 2, 18, TIE_WITH_1000) == (1140.0, 0.5)
    assert bot_duel(table, "50", 2, 17, TIE_WITH_1000) == (1000.0, 0.5)


def test_perfect_score_keeps_tie_when_tie_gains(table):
    # Class 50, 2 new players, perfect 25: B = 2040, E(1500, 2040) = 1 / (1 + 10 ** 1.35) = 0.042758.
    # 0.5 - E = 0.457242 > 0, so S stays 0.5: delta = 60 * 0.457242 = +27.43 -> 1527.43.
    ch = rate_team(team(NEW, NEW), "50", 25, table)
    for c in ch.values():
        assert c.delta == pytest.approx(27.43, abs=0.01)
        assert shown(c.after) == 1527.43


def test_class_60_threshold_and_perfect(table):
    # Class 60, 3 new players, score 21 (threshold): B = 1140, E = 0.888184,
    # delta = 60 * (0.5 - 0.888184) = -23.29. Score 20 is below: B = 1000 -> -26.81 (as example 5).
    ch = rate_team(team(NEW, NEW, NEW), "60", 21, table)
    assert [shown(c.delta) for c in ch.values()] == [-23.29] * 3
    ch = rate_team(team(NEW, NEW, NEW), "60", 20, table)
    assert [shown(c.delta) for c in ch.values()] == [-26.81] * 3


def test_class_60m_perfect_below_bot(table):
    # Class 60m, 3 players at 1600 (25 games, K 20), perfect 30: B = 2120, E(1600, 2120) = 0.047727,
    # 0.5 - E > 0 so S = 0.5: delta = 20 * 0.452273 = +9.05 -> 1609.05.
    p = Standing(1600.0, 25)
    ch = rate_team(team(p, p, p), "60m", 30, table)
    assert [shown(c.after) for c in ch.values()] == [1609.05] * 3


def test_three_strikes_score_zero_is_below_threshold(table):
    # The caller turns three strikes into rating score 0: below threshold, B = 1000, tie (as example 5).
    ch = rate_team(team(NEW, NEW), "50", 0, table)
    assert [shown(c.delta) for c in ch.values()] == [-26.81, -26.81]


def test_mixed_team_uses_mean_and_own_k(table):
    # Team {a 1700 (40 games, K 20), b 1500 (0 games, K 60)}, T = 1600, class 50, size 2, score 22: B = 1508.
    # E(1600, 1508) = 1 / (1 + 10 ** (-92 / 400)) = 1 / (1 + 0.588844) = 0.629389.
    # a: 20 * (0.5 - 0.629389) = -2.59 -> 1697.41; b: 60 * (0.5 - 0.629389) = -7.76 -> 1492.24.
    ch = rate_team(team(Standing(1700.0, 40), Standing(1500.0, 0)), "50", 22, table)
    assert (shown(ch["a"].after), shown(ch["b"].after)) == (1697.41, 1492.24)
    assert (ch["a"].k, ch["b"].k) == (20, 60)


def test_floor_applies(table):
    ch = rate_team(team(NEW, NEW), "50", 12, table, config=EloConfig(floor=1480.0))
    for c in ch.values():
        assert (c.after, c.delta) == (1480.0, -20.0)


def test_edited_table_is_used():
    # Moderators edit the table: the caller passes whatever table is current.
    ch = rate_team(team(NEW, NEW), "50", 20, {("50", 2, 20): 1500.0})
    assert [c.delta for c in ch.values()] == [0.0, 0.0]


def test_refusals(table):
    with pytest.raises(ValueError):
        rate_team(team(NEW), "50", 20, table)  # solo
    with pytest.raises(ValueError):
        rate_team(team(NEW, NEW), "50", 26, table)  # above max
    with pytest.raises(ValueError):
        rate_team(team(NEW, NEW), "55", 20, table)  # unknown class
    with pytest.raises(ValueError):
        rate_team(team(*[NEW] * 6), "50", 20, table)  # no table row for 6 players


def test_every_deck_of_the_rules_module_has_a_bot_class_or_is_recorded_unrated():
    from arena.games import get_game
    from arena.games.hanabi import DECK, UNRATED_DECKS
    from ratings.hanabi import VARIANT_CLASS

    decks = set(get_game("hanabi").variants[DECK])
    assert decks == set(VARIANT_CLASS) | UNRATED_DECKS and not set(VARIANT_CLASS) & UNRATED_DECKS
    assert {variant_class(deck) for deck in decks - UNRATED_DECKS} == {"50", "60", "60m"}
