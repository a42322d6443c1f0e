"""The registry and the rules every game shares (variant, players, quitter, places)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games import GAMES, UnknownGame, all_games, get_game
from arena.games.base import competition_places, is_int
from arena.games.results import ERROR_CODES, Entry, Ranking, RuleViolation, Side

from .builders import entry, judge, refused, result

GAMES_DIR = Path(__file__).resolve().parents[3] / "arena" / "games"
TESTS_DIR = Path(__file__).resolve().parent


# -- registry ------------------------------------------------------------------------------------------------


def test_registry_lists_the_six_games_in_a_stable_order():
    titles = [game.title for game in all_games()]
    assert titles == ["wizard", "hanabi", "tokaido", "spades", "railroad_ink", "nile"]
    assert set(GAMES) == {game.title for game in all_games()}
    assert all(GAMES[game.title] is game for game in all_games())


def test_get_game_returns_the_same_instance():
    assert get_game("wizard") is get_game("wizard") is GAMES["wizard"]


@pytest.mark.parametrize("title", ["chess", "", "Wizard", None])
def test_unknown_slug_raises_unknown_game_a_lookup_error(title):
    with pytest.raises(UnknownGame):
        get_game(title)
    with pytest.raises(LookupError):
        get_game(title)


def test_registry_is_read_only():
    with pytest.raises(TypeError):
        GAMES["chess"] = GAMES["wizard"]


# The table of docs/games.md, typed in by hand.
@pytest.mark.parametrize(
    ("title", "name", "low", "high", "recommended", "cooperative", "leaderboard"),
    [
        ("wizard", "Wizard", 3, 6, 4, False, True),
        ("hanabi", "Hanabi", 2, 5, None, True, False),
        ("tokaido", "Tokaido", 2, 5, 4, False, True),
        ("spades", "Spades", 4, 4, 4, False, True),
        ("railroad_ink", "Railroad Ink", 1, 6, 4, False, True),
        ("nile", "Nile DeLuxor", 2, 6, 4, False, True),
    ],
)
def test_game_table(title, name, low, high, recommended, cooperative, leaderboard):
    game = get_game(title)
    assert (game.name, game.min_players, game.max_players, game.recommended_players) == (name, low, high, recommended)
    assert (game.cooperative, game.has_leaderboard) == (cooperative, leaderboard)


def test_variant_options_default_first():
    assert GAMES["wizard"].variants == {"rounds": ("standard", "five_rounds", "amigo")}
    assert GAMES["hanabi"].variants == {"deck": ("normal", "tricky", "hard", "very_difficult")}
    assert GAMES["spades"].variants == {"target": (500, 300), "bags_penalty": (False, True)}
    assert GAMES["railroad_ink"].variants == {"expansion": ("none", "river", "lake", "meteor", "lava")}
    assert GAMES["tokaido"].variants == {}
    assert GAMES["nile"].variants == {}


# -- variant ---------------------------------------------------------------------------------------


def three_wizards():
    return entry("a", 30), entry("b", 20), entry("c", 10)


def test_variant_defaults_are_filled_in():
    assert judge("wizard", *three_wizards()).variant == {"rounds": "standard"}
    spades = [entry("a", 40), entry("b", 30), entry("c", 20), entry("d", 10)]
    assert judge("spades", *spades, variant={"target": 300}).variant == {"target": 300, "bags_penalty": False}
    assert judge("tokaido", entry("a", 1, achievements=0), entry("b", 2, achievements=0)).variant == {}


def test_unknown_variant_option():
    refused(
        "wizard", *three_wizards(), variant={"round": "standard"}, code="unknown_variant_option", field="variant.round"
    )
    refused(
        "tokaido",
        entry("a", 1, achievements=0),
        entry("b", 2, achievements=0),
        variant={"x": 1},
        code="unknown_variant_option",
        field="variant.x",
    )


@pytest.mark.parametrize(
    ("title", "variant", "field"),
    [
        ("wizard", {"rounds": "ten_rounds"}, "variant.rounds"),
        ("wizard", {"rounds": None}, "variant.rounds"),
        ("spades", {"target": 400}, "variant.target"),
        ("spades", {"target": "500"}, "variant.target"),
        ("spades", {"target": 500.0}, "variant.target"),  # a float is not the integer option
        ("spades", {"bags_penalty": 1}, "variant.bags_penalty"),  # 1 == True in Python, but not in the API
        ("spades", {"bags_penalty": "true"}, "variant.bags_penalty"),
        ("hanabi", {"deck": "Normal"}, "variant.deck"),
        ("railroad_ink", {"expansion": "volcano"}, "variant.expansion"),
    ],
)
def test_invalid_variant_value(title, variant, field):
    with pytest.raises(RuleViolation) as caught:
        get_game(title).judge(result(variant=variant))
    assert (caught.value.code, caught.value.field) == ("invalid_variant", field)


def test_variant_that_is_not_an_object():
    refused("wizard", *three_wizards(), variant=["standard"], code="invalid_variant", field="variant")


# -- players ---------------------------------------------------------------------------------------


def test_player_count_bounds():
    refused("wizard", entry("a", 1), entry("b", 2), code="player_count", field="players")
    seven = [entry(name, 10) for name in "abcdefg"]
    refused("wizard", *seven, code="player_count", field="players")
    refused("tokaido", code="player_count", field="players")


def test_duplicate_player_points_at_the_second_occurrence():
    refused("wizard", entry("a", 1), entry("b", 2), entry("a", 3), code="duplicate_player", field="players.2.player")


def test_only_one_quitter_points_at_the_second():
    refused(
        "wizard",
        entry("a", 1, quit=True),
        entry("b", 2),
        entry("c", 3, quit=True),
        entry("d", 4),
        code="too_many_quitters",
        field="players.2.quit",
    )


def test_score_is_required_and_an_integer():
    refused("wizard", entry("a", 1), entry("b"), entry("c", 3), code="missing_field", field="players.1.score")
    refused("wizard", entry("a", 1), entry("b", 2), entry("c", True), code="invalid_field", field="players.2.score")
    refused("wizard", entry("a", 1.5), entry("b", 2), entry("c", 3), code="invalid_field", field="players.0.score")


def test_team_on_a_game_without_teams():
    refused(
        "wizard",
        entry("a", 1),
        entry("b", 2, team="x"),
        entry("c", 3),
        code="teams_not_allowed",
        field="players.1.team",
    )


def test_unknown_player_field():
    refused(
        "wizard",
        entry("a", 1),
        entry("b", 2, colour="red"),
        entry("c", 3),
        code="unknown_field",
        field="players.1.colour",
    )


def test_a_missing_field_beside_an_unknown_one_names_both_with_the_likely_spelling():
    """The rules, not the API, know which fields a game has: they name every player's typo in one refusal."""
    caught = refused(
        "wizard",
        entry("a", 1),
        entry("b", scroe=2),
        entry("c", colour="red"),
        code="missing_field",
        field="players.1.score",
    )
    assert caught.fields == {
        "players.1.score": "Required.",
        "players.1.scroe": "Unknown field; did you mean score?",
        "players.2.score": "Required.",
        "players.2.colour": "Unknown field.",
    }
    caught = refused(
        "tokaido",
        entry("a", 30, achievements=1),
        entry("b", 20, achievments=2),
        code="missing_field",
        field="players.1.achievements",
    )
    assert caught.fields == {
        "players.1.achievements": "Required.",
        "players.1.achievments": "Unknown field; did you mean achievements?",
    }


def test_common_keys_left_in_fields_are_ignored():
    # ip and device belong to the API layer; if it forwards them they are not game fields.
    ranking = judge("wizard", entry("a", 1, ip="203.0.113.7", device="fp"), entry("b", 2), entry("c", 3))
    assert ranking.places == {"c": 1, "b": 2, "a": 3}


# -- details ---------------------------------------------------------------------------------------


def test_details_must_be_an_object_with_known_keys():
    refused("wizard", *three_wizards(), details=["rounds"], code="invalid_details", field="details")
    refused("wizard", *three_wizards(), details={"round": []}, code="invalid_details", field="details.round")
    refused(
        "tokaido",
        entry("a", 1, achievements=0),
        entry("b", 2, achievements=0),
        details={"x": 1},
        code="invalid_details",
        field="details.x",
    )


def test_empty_details_are_fine():
    assert judge("wizard", *three_wizards(), details={}).places == {"a": 1, "b": 2, "c": 3}


# -- places ----------------------------------------------------------------------------------------


def test_competition_places():
    assert competition_places([30, 20, 20, 10]) == [1, 2, 2, 4]
    assert competition_places([10, 20, 20, 30]) == [4, 2, 2, 1]
    assert competition_places([5, 5, 5]) == [1, 1, 1]
    assert competition_places([(3, 1), (3, 2), (2, 9)]) == [2, 1, 3]
    assert competition_places([]) == []


def test_shared_places_one_two_two_four():
    ranking = judge("wizard", entry("a", 90), entry("b", 120), entry("c", 90), entry("d", 40))
    assert ranking.places == {"b": 1, "a": 2, "c": 2, "d": 4}
    # best first, ties in entry order
    assert ranking.sides == (Side(("b",), 1), Side(("a",), 2), Side(("c",), 2), Side(("d",), 4))
    assert (ranking.recommended_sides, ranking.quitter, ranking.ratable, ranking.coop_score) == (4, None, True, None)


def test_everyone_tied_share_first_place():
    ranking = judge("wizard", entry("a", 0), entry("b", 0), entry("c", 0))
    assert ranking.places == {"a": 1, "b": 1, "c": 1}


def test_negative_scores_rank_normally():
    places = judge("wizard", entry("a", -30), entry("b", -10), entry("c", -20)).places
    assert places == {"b": 1, "c": 2, "a": 3}


def test_quitter_leading_is_moved_alone_to_last_and_the_rest_renumbered():
    # scores: a 100 (quit), b 90, c 90, d 50 -> b, c share 1st; d 3rd; a 4th
    ranking = judge("wizard", entry("a", 100, quit=True), entry("b", 90), entry("c", 90), entry("d", 50))
    assert ranking.places == {"b": 1, "c": 1, "d": 3, "a": 4}
    assert ranking.sides[-1] == Side(("a",), 4)
    assert ranking.quitter == "a"


def test_quitter_tied_with_another_player_is_placed_alone_below():
    ranking = judge("wizard", entry("a", 90, quit=True), entry("b", 90), entry("c", 10))
    assert ranking.places == {"b": 1, "c": 2, "a": 3}


def test_quitter_already_last_keeps_last():
    ranking = judge("wizard", entry("a", 90), entry("b", 80), entry("c", 10, quit=True))
    assert ranking.places == {"a": 1, "b": 2, "c": 3}
    assert ranking.quitter == "c"


def test_quitter_in_an_all_tied_game():
    places = judge("wizard", entry("a", 5), entry("b", 5, quit=True), entry("c", 5)).places
    assert places == {"a": 1, "c": 1, "b": 3}


def test_quit_false_is_not_a_quitter():
    assert judge("wizard", entry("a", 5, quit=False), entry("b", 6), entry("c", 7)).quitter is None


def test_ratable_needs_two_players_and_ignores_rated_false():
    assert judge("railroad_ink", entry("solo", 30, errors=0)).ratable is False
    assert judge("railroad_ink", entry("a", 30, errors=0), entry("b", 20, errors=0)).ratable is True
    assert judge("wizard", *three_wizards(), rated=False).ratable is True


def test_places_of_a_cooperative_ranking_are_empty():
    ranking = Ranking(
        variant={}, sides=(Side(("a", "b"), None),), recommended_sides=None, quitter=None, ratable=True, coop_score=20
    )
    assert ranking.places == {}


def test_judge_is_pure_and_deterministic():
    res = result(entry("a", 90), entry("b", 120), entry("c", 90), variant={"rounds": "amigo"})
    game = get_game("wizard")
    assert game.judge(res) == game.judge(res)
    assert res.variant == {"rounds": "amigo"}  # the input is not normalised in place


def test_is_int_rejects_bools():
    assert is_int(3) and is_int(-1) and is_int(0)
    assert not is_int(True) and not is_int(False) and not is_int(3.0) and not is_int("3")


def test_rule_violation_carries_code_message_field():
    error = RuleViolation("score_mismatch", "Bob says 3.", "players.1.score")
    assert (error.code, error.message, error.field, str(error)) == (
        "score_mismatch",
        "Bob says 3.",
        "players.1.score",
        "Bob says 3.",
    )
    assert RuleViolation("player_count", "Too many.").field is None


@given(st.lists(st.integers(-50, 50), min_size=3, max_size=6), st.data())
def test_places_property_quitter_last_and_others_competition_ranked(scores, data):
    quitter = data.draw(st.none() | st.integers(0, len(scores) - 1))
    entries = [Entry(f"p{i}", score, quit=(i == quitter)) for i, score in enumerate(scores)]
    places = judge("wizard", *entries).places
    others = [e for e in entries if not e.quit]
    for e in others:
        assert places[e.player] == 1 + sum(1 for o in others if o.score > e.score)
    if quitter is not None:
        assert places[f"p{quitter}"] == len(scores)
        assert list(places.values()).count(len(scores)) == 1


# -- error codes -----------------------------------------------------------------------------------


def codes_in(directory: Path, pattern: str) -> set[str]:
    text = "\n".join(p.read_text() for p in directory.glob("*.py"))
    return set(re.findall(pattern, text))


def test_every_raised_code_is_documented_and_every_documented_code_is_raised():
    raised = codes_in(GAMES_DIR, r'RuleViolation\(\s*"([a-z_]+)"') | codes_in(GAMES_DIR, r'code="([a-z_]+)"')
    assert raised == set(ERROR_CODES)


def test_every_error_code_is_exercised_by_a_test():
    text = "\n".join(p.read_text() for p in TESTS_DIR.glob("test_*.py"))
    assert {code for code in ERROR_CODES if f'"{code}"' not in text} == set()
