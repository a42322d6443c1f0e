"""Hanabi: one cooperative team, a score range per deck, strikes, and the unrated hard deck."""

from __future__ import annotations

import pytest

from arena.games import get_game
from arena.games.results import Side

from .builders import entry, judge, refused


def team(score, players="abc", **kwargs):
    return [entry(p, score, **kwargs) for p in players]


def test_cooperative_ranking_has_one_side_and_no_places():
    ranking = judge("hanabi", *team(22))
    assert ranking.sides == (Side(("a", "b", "c"), None),)
    assert ranking.places == {}
    assert (ranking.recommended_sides, ranking.coop_score, ranking.ratable, ranking.quitter) == (None, 22, True, None)
    assert ranking.variant == {"deck": "normal"}
    assert get_game("hanabi").has_leaderboard is False


def test_three_strikes_is_rated_as_zero():
    assert judge("hanabi", *team(14), details={"strikes": 3}).coop_score == 0
    assert judge("hanabi", *team(14), details={"strikes": 2}).coop_score == 14
    assert judge("hanabi", *team(14), details={"strikes": 0}).coop_score == 14


@pytest.mark.parametrize("strikes", [-1, 4])
def test_strikes_out_of_range(strikes):
    refused("hanabi", *team(14), details={"strikes": strikes}, code="strikes_out_of_range", field="details.strikes")


@pytest.mark.parametrize("strikes", ["3", True, 2.0, None])
def test_strikes_must_be_an_integer(strikes):
    refused("hanabi", *team(14), details={"strikes": strikes}, code="invalid_details", field="details.strikes")


def test_unknown_details_key():
    refused("hanabi", *team(14), details={"fuses": 1}, code="invalid_details", field="details.fuses")


def test_hard_deck_cannot_be_rated():
    refused("hanabi", *team(20), variant={"deck": "hard"}, code="variant_not_rated", field="variant.deck")
    ranking = judge("hanabi", *team(30), variant={"deck": "hard"}, rated=False)
    assert ranking.variant == {"deck": "hard"} and ranking.coop_score == 30


@pytest.mark.parametrize(("deck", "top"), [("normal", 25), ("tricky", 30), ("very_difficult", 30)])
def test_score_range_per_deck(deck, top):
    assert judge("hanabi", *team(top), variant={"deck": deck}).coop_score == top
    assert judge("hanabi", *team(0), variant={"deck": deck}).coop_score == 0
    refused("hanabi", *team(top + 1), variant={"deck": deck}, code="score_out_of_range", field="players.0.score")
    refused("hanabi", *team(-1), variant={"deck": deck}, code="score_out_of_range", field="players.0.score")


def test_hard_deck_range_is_thirty():
    refused(
        "hanabi", *team(31), variant={"deck": "hard"}, rated=False, code="score_out_of_range", field="players.0.score"
    )


def test_every_player_carries_the_team_score():
    refused(
        "hanabi", entry("a", 20), entry("b", 20), entry("c", 19), code="team_score_mismatch", field="players.2.score"
    )


def test_one_shared_team_label_is_accepted_two_are_not():
    assert judge("hanabi", *team(20, team="us")).coop_score == 20
    refused("hanabi", entry("a", 20, team="x"), entry("b", 20, team="y"), code="invalid_teams", field="players.1.team")
    refused("hanabi", entry("a", 20), entry("b", 20, team="y"), code="invalid_teams", field="players.1.team")


def test_player_count():
    refused("hanabi", entry("a", 20), code="player_count", field="players")
    refused("hanabi", *team(20, "abcdef"), code="player_count", field="players")
    assert judge("hanabi", *team(20, "ab")).ratable is True


def test_quitter_is_reported_for_the_extra_penalty():
    ranking = judge("hanabi", entry("a", 10), entry("b", 10, quit=True))
    assert ranking.quitter == "b"
    assert ranking.sides == (Side(("a", "b"), None),)


def test_score_is_required():
    refused("hanabi", entry("a", 20), entry("b"), code="missing_field", field="players.1.score")
