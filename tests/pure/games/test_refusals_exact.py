"""Refusals pinned to the letter: code, field path and message (what a game-server developer reads), and the
edges mutation testing (docs/testing.md) found unpinned. Boards, hands and rounds are the hand-worked ones of
the per-game tests (their comments show the sums)."""

from __future__ import annotations

import pytest

from arena.games.results import RuleViolation

from . import test_railroad_ink as rr
from . import test_spades as sp
from . import test_wizard as wz
from .builders import entry, judge


def refusal(title: str, *entries, **kwargs) -> tuple[str, str | None, str, dict]:
    with pytest.raises(RuleViolation) as caught:
        judge(title, *entries, **kwargs)
    e = caught.value
    return e.code, e.field, e.message, dict(e.fields or {})


# --- Railroad Ink -------------------------------------------------------------------------------------------------


def test_railroad_ink_refusals_read_exactly():
    es, d = rr.game()
    assert refusal("railroad_ink", *es, details={**d, "rounds": 0}) == (
        "round_count",
        "details.rounds",
        "This variant lasts 7 rounds, not 0.",
        {},
    )
    es, d = rr.game(scores={"alice": 41})
    assert refusal("railroad_ink", *es, details=d) == (
        "score_mismatch",
        "players.0.score",
        "alice reported 41 but the board details add up to 40.",
        {},
    )
    es, d = rr.game(boards=rr.edited("alice", errors="x"))
    assert refusal("railroad_ink", *es, details=d) == (
        "invalid_details",
        "details.players.alice.errors",
        "details.players.alice.errors must be an integer.",
        {},
    )
    es, d = rr.game(boards=rr.edited("alice", errors=-1))
    assert refusal("railroad_ink", *es, details=d) == (
        "invalid_details",
        "details.players.alice.errors",
        "details.players.alice.errors is -1; it must be at least 0.",
        {},
    )
    es, d = rr.game(boards=rr.edited("carol", expansion_points=2))
    assert refusal("railroad_ink", *es, details=d) == (
        "expansion_points_not_allowed",
        "details.players.carol.expansion_points",
        "The base game has no expansion points.",
        {},
    )


def test_a_board_may_score_zero_everywhere_but_its_networks():
    # a: one network of 2 exits = 4 points, highway 0, railway 0, central 0, errors 0 -> 4; b: an empty board -> 0.
    bare = {"longest_highway": 0, "longest_railway": 0, "central": 0}
    ranking = judge(
        "railroad_ink",
        entry("a", 4, errors=0),
        entry("b", 0, errors=0),
        details={"players": {"a": {"networks": [2], **bare, "errors": 0}, "b": {"networks": [], **bare}}},
    )
    assert [(s.players, s.place) for s in ranking.sides] == [(("a",), 1), (("b",), 2)]


# --- Spades -------------------------------------------------------------------------------------------------------


def test_spades_refusals_read_exactly():
    es, kw = sp.individual(a=81)
    assert refusal("spades", *es, **kw) == (
        "score_mismatch",
        "players.0.score",
        "a reported 81 but the hands add up to 80.",
        {},
    )
    assert refusal(
        "spades", entry("a", 1, team="N"), entry("b", 2), entry("c", 3, team="N"), entry("d", 4, team="S")
    ) == ("invalid_teams", "players.1.team", "Either every player has a team or none has.", {})
    assert refusal(
        "spades", entry("a", 1, team="N"), entry("b", 2, team="N"), entry("c", 3, team="N"), entry("d", 4, team="S")
    ) == ("invalid_teams", "players", "Partnership Spades is two teams of two.", {})
    code, _, message, _ = refusal("spades", entry("a", 80), entry("b", 80), entry("c", 10), entry("d", 50))
    assert (code, message) == ("tie_not_allowed", "A tie for first place is played out with another hand.")


def test_nine_bags_are_not_yet_ten():
    # a bags 1 (4/5), 4 (2/6), 4 (1/5): 9 bags, no -100 even with the bags penalty. Hands (13 tricks each):
    #   hand 2: a 1/5 -> 10 + 4 = 14 | b 3/3 -> 30 | c 2/2 -> 20 | d 3/3 -> 30   (5+3+2+3 = 13)
    #   a 41 + 24 + 14 = 79; b 30 - 30 + 30 = 30; c -20 + 10 + 20 = 10; d 40 + 40 + 30 = 110
    hands = [
        sp.INDIVIDUAL[0],
        sp.INDIVIDUAL[1],
        {"a": sp.bt(1, 5), "b": sp.bt(3, 3), "c": sp.bt(2, 2), "d": sp.bt(3, 3)},
    ]
    es, kw = sp.individual(a=79, d=110, hands=hands, variant={"bags_penalty": True, "target": 300})
    assert judge("spades", *es, **kw).places == {"d": 1, "a": 2, "b": 3, "c": 4}


# --- Wizard, Hanabi, Nile, every game -------------------------------------------------------------------------------


def test_wizard_score_mismatch_names_the_rounds():
    game = wz.five_rounds_game(alice=311)
    assert refusal("wizard", *game["entries"], variant=wz.FIVE, details=game["details"]) == (
        "score_mismatch",
        "players.0.score",
        "alice reported 311 but the rounds add up to 310.",
        {},
    )


def test_hanabi_refusals_name_the_player_who_differs_from_the_first():
    # The first player's score is the team's: the second (21, not 20) is the one at fault.
    assert refusal("hanabi", entry("a", 20), entry("b", 21), entry("c", 21), variant={"deck": "normal"}) == (
        "team_score_mismatch",
        "players.1.score",
        "Every player must report the team's score.",
        {},
    )
    assert refusal("hanabi", entry("a", 20, team="x"), entry("b", 20, team="y"), variant={"deck": "normal"}) == (
        "invalid_teams",
        "players.1.team",
        "Hanabi is played by one team: every player shares it.",
        {},
    )


def test_field_problems_read_exactly():
    assert refusal("tokaido", entry("a", "x", achievements=1), entry("b", 3, achievements=1)) == (
        "invalid_field",
        "players.0.score",
        "a's score must be an integer.",
        {},
    )
    assert refusal("nile", entry("a", None, crops="x"), entry("b", None, crops=[1, 2, 3])) == (
        "invalid_field",
        "players.0.crops",
        "a's 'crops' must be a list of counts (integers >= 0).",
        {},
    )


MISSPELT = "A required field is missing and an unknown one sits beside it; see fields."


def test_a_misspelt_field_is_named_first_the_missing_score_then_the_rest():
    # score first among the missing, then the game's own fields; the common keys (ip) are never "unknown".
    assert refusal("tokaido", entry("a", None, scroe=5, ip="192.0.2.1"), entry("b", 3, achievements=1)) == (
        "missing_field",
        "players.0.score",
        MISSPELT,
        {
            "players.0.score": "Required.",
            "players.0.achievements": "Required.",
            "players.0.scroe": "Unknown field; did you mean score?",
        },
    )


def test_a_far_spelling_is_not_guessed():
    # difflib's ratio of "scrxx" to "score" is 2 x 3 / 10 = 0.6 (s, c, r in order): under the 0.7 cutoff.
    assert refusal("tokaido", entry("a", None, scrxx=5, achievements=1), entry("b", 3, achievements=1)) == (
        "missing_field",
        "players.0.score",
        MISSPELT,
        {"players.0.score": "Required.", "players.0.scrxx": "Unknown field."},
    )


def test_railroad_ink_counts_are_integers_from_zero():
    es, d = rr.game()
    assert refusal("railroad_ink", *es, details={**d, "rounds": "x"}) == (
        "invalid_details",
        "details.rounds",
        "details.rounds must be an integer.",
        {},
    )
    assert refusal("railroad_ink", *es, details={**d, "rounds": -1}) == (
        "invalid_details",
        "details.rounds",
        "details.rounds is -1; it must be at least 0.",
        {},
    )
    for key in ("longest_railway", "central"):
        es, d = rr.game(boards=rr.edited("bob", **{key: -1}))
        where = f"details.players.bob.{key}"
        assert refusal("railroad_ink", *es, details=d) == (
            "invalid_details",
            where,
            f"{where} is -1; it must be at least 0.",
            {},
        )
    es, d = rr.game(boards={**rr.BOARDS, "alice": "x"})
    assert refusal("railroad_ink", *es, details=d) == (
        "invalid_details",
        "details.players.alice",
        "details.players.alice must be an object.",
        {},
    )


def test_a_player_field_must_be_an_integer():
    assert refusal("tokaido", entry("a", 3, achievements="x"), entry("b", 3, achievements=1)) == (
        "invalid_field",
        "players.0.achievements",
        "a's 'achievements' must be an integer.",
        {},
    )
