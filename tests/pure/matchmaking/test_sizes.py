"""Table sizes come from the games' own rules: docs/games.md's player counts, docs/matchmaking.md's table of two at
least and Hanabi at 3, Wizard's amigo at 3 to 5 and Hanabi's hard deck unrated, written out here by hand."""

from __future__ import annotations

import pytest

from arena.games import all_games, get_game
from matchmaking.sizes import Sizes, pool_sizes, table_name

# (title, variant) -> (low, high, recommended), from the docs, not from the rules modules.
EXPECTED = {
    ("wizard", "standard"): (3, 6, 4),
    ("wizard", "five_rounds"): (3, 6, 4),
    ("wizard", "amigo"): (3, 5, 4),
    ("hanabi", "normal"): (2, 5, 3),
    ("hanabi", "hard"): (2, 5, 3),
    ("tokaido", None): (2, 5, 4),
    ("spades", None): (4, 4, 4),
    ("nile", None): (2, 6, 4),
    ("railroad_ink", None): (2, 6, 4),
}


def _variant(title: str, option: str | None) -> dict:
    rules = get_game(title)
    name = next(iter(rules.variants), None)
    return rules.normalise_variant({name: option} if option is not None and name is not None else {})


@pytest.mark.parametrize(("title", "option"), sorted(EXPECTED, key=str))
def test_pool_sizes_follow_the_games_rules(title, option):
    assert pool_sizes(get_game(title), _variant(title, option)) == Sizes(*EXPECTED[title, option])


def test_every_game_has_its_sizes_here():
    assert {title for title, _ in EXPECTED} == {rules.title for rules in all_games()}


def test_only_hanabis_hard_deck_is_unrated_and_only_amigo_renames_the_table():
    unrated = {
        (rules.title, value)
        for rules in all_games()
        for name, values in rules.variants.items()
        for value in values
        if not rules.rated_variant(rules.normalise_variant({name: value}))
    }
    assert unrated == {("hanabi", "hard")}
    assert table_name(get_game("wizard"), _variant("wizard", "amigo")) == "Wizard (rounds amigo)"
    assert table_name(get_game("wizard"), _variant("wizard", "standard")) == "Wizard"
    assert table_name(get_game("hanabi"), _variant("hanabi", "hard")) == "Hanabi"
