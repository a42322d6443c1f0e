"""What mutation testing (docs/testing.md) found unpinned in the rating rules: the guards' exact refusals (a
caller's bug must say what is wrong), configuration edges and the Hanabi table reader. Hand-worked values."""

from __future__ import annotations

import re

import pytest

from ratings.elo import Change, EloConfig, Standing, multiplier, rate_sides
from ratings.hanabi import NotRatable, bot_duel, load_default_table, rate_team, variant_class
from ratings.skill import DEFAULT_SKILL, match_quality, rate_skill

NEW = Standing(1500.0, 0)


def exact(message: str) -> str:
    return "^" + re.escape(message) + "$"


# --- ratings/elo.py ---------------------------------------------------------------------------------------------


def test_thresholds_may_start_at_zero_and_coincide():
    # 0 <= mid_from <= settled_from: both bounds are inclusive.
    assert EloConfig(mid_from=0, settled_from=0).mid_from == 0
    assert EloConfig(mid_from=10, settled_from=10).settled_from == 10
    with pytest.raises(ValueError, match=exact("EloConfig needs 0 <= mid_from <= settled_from")):
        EloConfig(mid_from=-1)
    with pytest.raises(ValueError, match=exact("EloConfig needs 0 <= mid_from <= settled_from")):
        EloConfig(mid_from=11, settled_from=10)


def test_elo_guards_name_the_problem():
    with pytest.raises(ValueError, match=exact("a rated game needs at least 2 sides, got 1")):
        multiplier(1, 4)
    with pytest.raises(ValueError, match=exact("recommended number of sides must be at least 2, got 1")):
        multiplier(2, 1)
    with pytest.raises(ValueError, match=exact("a rated game needs at least 2 sides, got 1")):
        rate_sides([[("a", NEW)]], [1], 4)
    with pytest.raises(ValueError, match=exact("2 sides but 3 places")):
        rate_sides([[("a", NEW)], [("b", NEW)]], [1, 2, 3], 4)
    with pytest.raises(ValueError, match=exact("a side needs at least one player")):
        rate_sides([[("a", NEW)], []], [1, 2], 4)
    with pytest.raises(ValueError, match=exact("a player appears more than once in the game")):
        rate_sides([[("a", NEW)], [("a", NEW)]], [1, 2], 4)
    with pytest.raises(ValueError, match=exact("the quitter's side must be placed alone below every other side")):
        rate_sides([[("a", NEW)], [("b", NEW)]], [2, 1], 4, quitter="b")
    with pytest.raises(ValueError, match=exact("the quitter is not among the players")):
        rate_sides([[("a", NEW)], [("b", NEW)]], [1, 2], 4, quitter="z")


# --- ratings/hanabi.py ------------------------------------------------------------------------------------------


def test_hanabi_guards_name_the_problem():
    with pytest.raises(NotRatable, match=exact("Hanabi deck 'hard' cannot be rated")):
        variant_class("hard")
    with pytest.raises(ValueError, match=exact("unknown Hanabi deck 'rainbow'")):
        variant_class("rainbow")
    table = {("50", 2, 18): 1140.0}
    with pytest.raises(ValueError, match=exact("unknown variant class '70'")):
        bot_duel(table, "70", 2, 18)
    with pytest.raises(ValueError, match=exact("score 26 out of range for class 50")):
        bot_duel(table, "50", 2, 26)
    with pytest.raises(
        ValueError,
        match=exact("unknown below-threshold rule 'x'; expected one of ('tie_with_1000', 'lose_to_weakest')"),
    ):
        bot_duel(table, "50", 2, 3, below_rule="x")
    with pytest.raises(ValueError, match=exact("Hanabot table has no row for ('50', 3, 18)")):
        bot_duel(table, "50", 3, 18)
    with pytest.raises(ValueError, match=exact("a rated Hanabi game needs at least 2 players, got 1")):
        rate_team([("a", NEW)], "50", 18, table)
    with pytest.raises(ValueError, match=exact("a player appears more than once in the team")):
        rate_team([("a", NEW), ("a", NEW)], "50", 18, table)


def test_the_shipped_table_values_are_read_as_numbers():
    # ratings/data/hanabot.csv, read by eye: 50,2,18,1140 and 50,2,25,2040 and 60m,5,21,1280; 112 rows.
    table = load_default_table()
    assert table[("50", 2, 18)] == 1140.0 and table[("50", 2, 25)] == 2040.0 and table[("60m", 5, 21)] == 1280.0
    assert len(table) == 112


def test_table_reader_skips_blank_lines_and_refuses_bad_rows(tmp_path):
    path = tmp_path / "bot.csv"
    path.write_text("variant_class,team_size,score,hanabot_elo\n50,2,18,1140\n\n50,2,19,1180\n", encoding="utf-8")
    assert load_default_table(path) == {("50", 2, 18): 1140.0, ("50", 2, 19): 1180.0}
    path.write_text("a,b,c,d\n", encoding="utf-8")
    with pytest.raises(ValueError, match=exact("unexpected Hanabot table header ('a', 'b', 'c', 'd')")):
        load_default_table(path)
    path.write_text("variant_class,team_size,score,hanabot_elo\n70,2,18,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=exact("unknown variant class '70' in Hanabot table")):
        load_default_table(path)
    path.write_text("variant_class,team_size,score,hanabot_elo\n50,2,18,1\n50,2,18,2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=exact("duplicate Hanabot table row ('50', 2, 18)")):
        load_default_table(path)


def test_perfect_score_against_an_equal_bot_is_still_a_tie():
    # docs/ratings.md: a perfect score counts as a win only when the tie would cost points (0.5 - E < 0). Team
    # 1500 against a bot of 1500: E = 0.5 exactly, 0.5 - E = 0, so it stays a tie: delta 60 x (0.5 - 0.5) = 0.
    changes = rate_team([("a", NEW), ("b", NEW)], "50", 25, {("50", 2, 25): 1500.0})
    assert changes["a"].delta == 0.0 and changes["a"].after == 1500.0


def test_hanabi_uses_the_configured_k_and_reports_the_whole_change():
    # k_new 30 instead of 60; the team (1500, 0 games) scores 18 against the table's 1140:
    # E = 1 / (1 + 10^((1140 - 1500) / 400)) = 1 / (1 + 10^-0.9) = 1 / 1.125893 = 0.888183; delta 30 x (0.5 - E).
    changes = rate_team(
        [("a", Standing(1500.0, 3)), ("b", NEW)], "50", 18, {("50", 2, 18): 1140.0}, config=EloConfig(k_new=30)
    )
    e = 1 / (1 + 10 ** (-0.9))
    assert changes["a"] == Change(1500.0, pytest.approx(1500.0 + 30 * (0.5 - e)), pytest.approx(30 * (0.5 - e)), 30, 3)
    assert round(changes["a"].delta, 4) == round(30 * (0.5 - 0.888183), 4) == -11.6455


# --- ratings/skill.py -------------------------------------------------------------------------------------------


def test_skill_guards_name_the_problem():
    with pytest.raises(ValueError, match=exact("TrueSkill needs at least 2 sides, got 1")):
        rate_skill([[("a", DEFAULT_SKILL)]], [1])
    with pytest.raises(ValueError, match=exact("a side needs at least one player")):
        match_quality([[("a", DEFAULT_SKILL)], []])
    with pytest.raises(ValueError, match=exact("2 sides but 1 places")):
        rate_skill([[("a", DEFAULT_SKILL)], [("b", DEFAULT_SKILL)]], [1])
    with pytest.raises(ValueError, match=exact("a player appears more than once in the game")):
        rate_skill([[("a", DEFAULT_SKILL)], [("a", DEFAULT_SKILL)]], [1, 2])
