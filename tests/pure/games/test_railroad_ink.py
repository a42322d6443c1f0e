"""Railroad Ink: score from the board, fewer errors break ties, solo games are not rated."""

from __future__ import annotations

import copy

import pytest

from arena.games.railroad_ink import NETWORK_POINTS, board_score

from .builders import entry, judge, refused

# Boards worked by hand from the network table (exits 0..12 -> 0,0,4,8,12,16,20,24,28,32,36,40,45):
#   alice: networks 3,5,2,1 -> 8+16+4+0 = 28; + highway 6 + railway 4 + central 5 - errors 3 = 40
#   bob:   networks 12      -> 45;           + 2 + 3 + 9 - 10                               = 49
#   carol: networks 4,4     -> 12+12 = 24;   + 7 + 5 + 5 - 1                                = 40
BOARDS = {
    "alice": {"networks": [3, 5, 2, 1], "longest_highway": 6, "longest_railway": 4, "central": 5, "errors": 3},
    "bob": {"networks": [12], "longest_highway": 2, "longest_railway": 3, "central": 9},
    "carol": {"networks": [4, 4], "longest_highway": 7, "longest_railway": 5, "central": 5, "expansion_points": 0},
}
ERRORS = {"alice": 3, "bob": 10, "carol": 1}
SCORES = {"alice": 40, "bob": 49, "carol": 40}


def game(boards=None, scores=None, errors=None, **details):
    scores, errors = {**SCORES, **(scores or {})}, {**ERRORS, **(errors or {})}
    entries = [entry(p, scores[p], errors=errors[p]) for p in ("alice", "bob", "carol")]
    return entries, {"players": BOARDS if boards is None else boards, **details}


def edited(player, **change):
    boards = copy.deepcopy(BOARDS)
    boards[player].update(change)
    return boards


def test_network_table():
    assert NETWORK_POINTS == (0, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 45)
    assert board_score([3, 5, 2, 1], 6, 4, 5, 3) == 40
    assert board_score([12], 2, 3, 9, 10) == 49


def test_hand_worked_boards_and_the_fewer_errors_tie_break():
    entries, details = game(rounds=7)
    ranking = judge("railroad_ink", *entries, details=details)
    # carol and alice both score 40: carol made 1 error, alice 3
    assert ranking.places == {"bob": 1, "carol": 2, "alice": 3}
    assert ranking.variant == {"expansion": "none"}


def test_equal_score_and_errors_share():
    ranking = judge("railroad_ink", entry("a", 30, errors=2), entry("b", 30, errors=2), entry("c", 31, errors=9))
    assert ranking.places == {"c": 1, "a": 2, "b": 2}


def test_solo_game_is_recorded_not_ratable():
    ranking = judge("railroad_ink", entry("solo", 52, errors=0))
    assert ranking.ratable is False
    assert ranking.places == {"solo": 1}


def test_expansion_points_and_six_rounds():
    # dave, river: network 6 -> 20; + 3 + 3 + 4 - 2 errors + 8 river points = 36
    board = {"networks": [6], "longest_highway": 3, "longest_railway": 3, "central": 4, "expansion_points": 8}
    ranking = judge(
        "railroad_ink",
        entry("dave", 36, errors=2),
        variant={"expansion": "river"},
        details={"rounds": 6, "players": {"dave": board}},
    )
    assert ranking.places == {"dave": 1}
    refused(
        "railroad_ink",
        entry("dave", 36, errors=2),
        details={"players": {"dave": board}},
        code="expansion_points_not_allowed",
        field="details.players.dave.expansion_points",
    )


@pytest.mark.parametrize(("expansion", "rounds"), [("none", 6), ("none", 8), ("lava", 7), ("meteor", 5)])
def test_round_count(expansion, rounds):
    refused(
        "railroad_ink",
        entry("a", 10, errors=0),
        variant={"expansion": expansion},
        details={"rounds": rounds},
        code="round_count",
        field="details.rounds",
    )


@pytest.mark.parametrize("expansion", ["river", "lake", "meteor", "lava"])
def test_every_expansion_lasts_six_rounds(expansion):
    assert (
        judge("railroad_ink", entry("a", 10, errors=0), variant={"expansion": expansion}, details={"rounds": 6}).ratable
        is False
    )


def test_score_mismatch():
    entries, details = game(scores={"bob": 50})
    refused("railroad_ink", *entries, details=details, code="score_mismatch", field="players.1.score")


def test_details_errors_must_match_the_entry():
    entries, details = game(boards=edited("alice", errors=2))
    refused("railroad_ink", *entries, details=details, code="errors_mismatch", field="details.players.alice.errors")


def test_every_player_needs_a_board_and_no_stranger():
    boards = copy.deepcopy(BOARDS)
    del boards["carol"]
    entries, details = game(boards=boards)
    refused("railroad_ink", *entries, details=details, code="missing_player_in_details", field="details.players")
    boards = {**BOARDS, "zed": BOARDS["bob"]}
    entries, details = game(boards=boards)
    refused("railroad_ink", *entries, details=details, code="unknown_player_in_details", field="details.players.zed")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"networks": [3, 13]}, "details.players.bob.networks.1"),
        ({"networks": [0]}, "details.players.bob.networks.0"),
        ({"networks": 12}, "details.players.bob.networks"),
        ({"central": 10}, "details.players.bob.central"),
        ({"longest_highway": -1}, "details.players.bob.longest_highway"),
        ({"longest_railway": "3"}, "details.players.bob.longest_railway"),
        ({"expansion_points": -2}, "details.players.bob.expansion_points"),
        ({"bonus": 1}, "details.players.bob.bonus"),
    ],
)
def test_malformed_board(change, field):
    entries, details = game(boards=edited("bob", **change))
    refused("railroad_ink", *entries, details=details, code="invalid_details", field=field)


def test_board_missing_a_part():
    boards = copy.deepcopy(BOARDS)
    del boards["bob"]["central"]
    entries, details = game(boards=boards)
    refused("railroad_ink", *entries, details=details, code="invalid_details", field="details.players.bob.central")


def test_errors_field():
    refused("railroad_ink", entry("a", 10), code="missing_field", field="players.0.errors")
    refused("railroad_ink", entry("a", 10, errors=-1), code="invalid_field", field="players.0.errors")
    refused("railroad_ink", entry("a", 10, errors=False), code="invalid_field", field="players.0.errors")


def test_player_count():
    seven = [entry(p, 10, errors=0) for p in "abcdefg"]
    refused("railroad_ink", *seven, code="player_count", field="players")
