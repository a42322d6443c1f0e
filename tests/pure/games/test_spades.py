"""Spades: contracts, bags, partnerships, and no tie for first."""

from __future__ import annotations

import copy

import pytest

from arena.games.results import Side
from arena.games.spades import hand_score, side_total

from .builders import entry, judge, refused


def bt(bid, tricks):
    return {"bid": bid, "tricks": tricks}


# Individual game, three hands (13 tricks each):
#   hand 0: a 4/5 -> 41 (1 bag) | b 3/3 -> 30  | c 2/1 -> -20 | d 4/4 -> 40    (5+3+1+4 = 13)
#   hand 1: a 2/6 -> 24 (4 bags)| b 3/2 -> -30 | c 1/1 -> 10  | d 4/4 -> 40    (6+2+1+4 = 13)
#   hand 2: a 1/6 -> 15 (5 bags)| b 3/3 -> 30  | c 2/2 -> 20  | d 3/2 -> -30   (6+3+2+2 = 13)
#   without bags penalty: a 41+24+15 = 80, b 30, c 10, d 50
#   with bags penalty: a reaches 1+4+5 = 10 bags in hand 2 -> -100: a -20; nobody else has a bag
INDIVIDUAL = [
    {"a": bt(4, 5), "b": bt(3, 3), "c": bt(2, 1), "d": bt(4, 4)},
    {"a": bt(2, 6), "b": bt(3, 2), "c": bt(1, 1), "d": bt(4, 4)},
    {"a": bt(1, 6), "b": bt(3, 3), "c": bt(2, 2), "d": bt(3, 2)},
]

# Partnerships N = {a, c}, S = {b, d}; the contract is judged on the partners' sums:
#   hand 0: N bids 3+2 = 5, takes 4+3 = 7 -> 52 (2 bags) | S bids 4+3 = 7, takes 3+3 = 6 -> -70
#   hand 1: N bids 5+1 = 6, takes 5+0 = 5 -> -60 (a made 5/5 alone, but the team broke) | S bids 2+2 = 4,
#           takes 4+4 = 8 -> 44 (4 bags)
#   totals: N 52-60 = -8, S -70+44 = -26
PARTNERS = [
    {"a": bt(3, 4), "b": bt(4, 3), "c": bt(2, 3), "d": bt(3, 3)},
    {"a": bt(5, 5), "b": bt(2, 4), "c": bt(1, 0), "d": bt(2, 4)},
]


def individual(a=80, b=30, c=10, d=50, hands=None, **kwargs):
    entries = (entry("a", a), entry("b", b), entry("c", c), entry("d", d))
    return entries, {"details": {"hands": INDIVIDUAL if hands is None else hands}, **kwargs}


def partners(n=-8, s=-26, *, quit_player=None, hands=None, **kwargs):
    entries = tuple(
        entry(p, n if team == "N" else s, team=team, quit=(p == quit_player))
        for p, team in (("a", "N"), ("b", "S"), ("c", "N"), ("d", "S"))
    )
    return entries, {"details": {"hands": PARTNERS if hands is None else hands}, **kwargs}


def edited(hands, number, player, **change):
    hands = copy.deepcopy(hands)
    hands[number][player].update(change)
    return hands


def test_hand_score_examples_from_the_rules():
    assert hand_score(7, 7) == (70, 0)
    assert hand_score(5, 8) == (53, 3)  # 50 for the bid, 3 overtricks
    assert hand_score(4, 3) == (-40, 0)  # broken contract: no bags either


def test_side_total_bags_carry_over_and_drop_by_ten():
    # (5, 9): 54, 4 bags | (4, 10): 46, 6 more bags -> 10 -> -100, count back to 0
    assert side_total([(5, 9), (4, 10)], bags_penalty=False) == 100
    assert side_total([(5, 9), (4, 10)], bags_penalty=True) == 0
    # 12 bags at once: -100 and 2 carried; 8 more next hand: -100 again
    assert side_total([(1, 13), (1, 9)], bags_penalty=True) == 22 - 100 + 18 - 100


def test_individual_without_bags_penalty():
    entries, kwargs = individual()
    ranking = judge("spades", *entries, **kwargs)
    assert ranking.places == {"a": 1, "d": 2, "b": 3, "c": 4}
    assert ranking.recommended_sides == 4 and len(ranking.sides) == 4
    assert ranking.variant == {"target": 500, "bags_penalty": False}


def test_individual_with_bags_penalty():
    entries, kwargs = individual(a=-20, variant={"bags_penalty": True, "target": 300})
    assert judge("spades", *entries, **kwargs).places == {"d": 1, "b": 2, "c": 3, "a": 4}
    # the unpenalised total is now wrong
    entries, kwargs = individual(a=80, variant={"bags_penalty": True})
    refused("spades", *entries, **kwargs, code="score_mismatch", field="players.0.score")


def test_bags_carry_across_hands_and_shared_second_place():
    # hand 0: a 1/13 -> 22, 12 bags -> -100, 2 left | b, c, d 1/0 -> -10 each
    # hand 1: a 1/9 -> 18, 2+8 = 10 bags -> -100     | b 1/2 -> 11 | c 1/1 -> 10 | d 1/1 -> 10
    # with penalty: a 22-100+18-100 = -160, b 1, c 0, d 0 -> places 1, 2, 2, 4
    hands = [
        {"a": bt(1, 13), "b": bt(1, 0), "c": bt(1, 0), "d": bt(1, 0)},
        {"a": bt(1, 9), "b": bt(1, 2), "c": bt(1, 1), "d": bt(1, 1)},
    ]
    entries, kwargs = individual(a=-160, b=1, c=0, d=0, hands=hands, variant={"bags_penalty": True})
    assert judge("spades", *entries, **kwargs).places == {"b": 1, "c": 2, "d": 2, "a": 4}
    entries, kwargs = individual(a=40, b=1, c=0, d=0, hands=hands)
    assert judge("spades", *entries, **kwargs).places == {"a": 1, "b": 2, "c": 3, "d": 3}


def test_partnerships_are_two_sides_with_rec_two():
    entries, kwargs = partners()
    ranking = judge("spades", *entries, **kwargs)
    assert ranking.sides == (Side(("a", "c"), 1), Side(("b", "d"), 2))
    assert ranking.places == {"a": 1, "c": 1, "b": 2, "d": 2}
    assert ranking.recommended_sides == 2


def test_partnership_bags_are_counted_per_team():
    # hand 0: N bids 3+2 = 5, takes 5+4 = 9 -> 54, 4 bags  | S bids 1+1 = 2, takes 2+2 = 4 -> 22, 2 bags
    # hand 1: N bids 2+2 = 4, takes 6+4 = 10 -> 46, 6 bags | S bids 1+1 = 2, takes 2+1 = 3 -> 21, 1 bag
    # N reaches 4+6 = 10 bags -> -100: N = 54+46-100 = 0 (100 without the penalty); S = 43 with 3 bags.
    hands = [
        {"a": bt(3, 5), "b": bt(1, 2), "c": bt(2, 4), "d": bt(1, 2)},
        {"a": bt(2, 6), "b": bt(1, 2), "c": bt(2, 4), "d": bt(1, 1)},
    ]
    entries, kwargs = partners(0, 43, hands=hands, variant={"bags_penalty": True})
    assert judge("spades", *entries, **kwargs).places == {"b": 1, "d": 1, "a": 2, "c": 2}
    entries, kwargs = partners(100, 43, hands=hands)
    assert judge("spades", *entries, **kwargs).places == {"a": 1, "c": 1, "b": 2, "d": 2}


def test_quitter_drags_the_whole_team_to_last():
    entries, kwargs = partners(quit_player="c")
    ranking = judge("spades", *entries, **kwargs)
    assert ranking.sides == (Side(("b", "d"), 1), Side(("a", "c"), 2))
    assert ranking.quitter == "c"


def test_tie_for_first_is_refused():
    refused(
        "spades", entry("a", 50), entry("b", 50), entry("c", 10), entry("d", 0), code="tie_not_allowed", field="players"
    )
    entries, _ = partners(-8, -8)
    refused("spades", *entries, code="tie_not_allowed", field="players")


def test_tie_for_first_broken_by_a_quitter_is_accepted():
    ranking = judge("spades", entry("a", 50, quit=True), entry("b", 50), entry("c", 10), entry("d", 0))
    assert ranking.places == {"b": 1, "c": 2, "d": 3, "a": 4}


def test_spades_needs_exactly_four():
    refused("spades", entry("a", 3), entry("b", 2), entry("c", 1), code="player_count", field="players")


@pytest.mark.parametrize(
    ("teams", "field"),
    [
        (("N", "S", None, "S"), "players.2.team"),  # some players without a team
        (("N", "N", "N", "N"), "players"),  # one team of four
        (("N", "S", "N", "E"), "players"),  # three teams
        (("N", "S", "S", "S"), "players"),  # one and three
    ],
)
def test_invalid_teams(teams, field):
    entries = [entry(p, 10, team=t) for p, t in zip("abcd", teams, strict=True)]
    refused("spades", *entries, code="invalid_teams", field=field)


def test_partners_must_report_the_same_score():
    entries = (entry("a", -8, team="N"), entry("b", -26, team="S"), entry("c", -9, team="N"), entry("d", -26, team="S"))
    refused("spades", *entries, code="team_score_mismatch", field="players.2.score")


@pytest.mark.parametrize("bid", [0, 14])
def test_bid_out_of_range(bid):
    entries, kwargs = individual(hands=edited(INDIVIDUAL, 1, "d", bid=bid))
    refused("spades", *entries, **kwargs, code="bid_out_of_range", field="details.hands.1.d.bid")


@pytest.mark.parametrize("tricks", [-1, 14])
def test_tricks_out_of_range(tricks):
    entries, kwargs = individual(hands=edited(INDIVIDUAL, 0, "b", tricks=tricks))
    refused("spades", *entries, **kwargs, code="tricks_out_of_range", field="details.hands.0.b.tricks")


def test_tricks_total():
    entries, kwargs = individual(hands=edited(INDIVIDUAL, 2, "c", tricks=3))
    refusal = refused("spades", *entries, **kwargs, code="tricks_total", field="details.hands.2")
    assert refusal.message.startswith("Hand 3 has ")  # the third hand, said 1-based


def test_score_mismatch_in_partnerships():
    entries, kwargs = partners(-8, -16)
    refused("spades", *entries, **kwargs, code="score_mismatch", field="players.1.score")


def test_details_players():
    hands = copy.deepcopy(INDIVIDUAL)
    hands[0]["e"] = bt(1, 0)
    entries, kwargs = individual(hands=hands)
    refused("spades", *entries, **kwargs, code="unknown_player_in_details", field="details.hands.0.e")
    hands = copy.deepcopy(INDIVIDUAL)
    del hands[2]["d"]
    entries, kwargs = individual(hands=hands)
    refused("spades", *entries, **kwargs, code="missing_player_in_details", field="details.hands.2")


@pytest.mark.parametrize(
    ("hands", "field"),
    [
        ({"0": INDIVIDUAL[0]}, "details.hands"),
        ([INDIVIDUAL[0], "hand"], "details.hands.1"),
        (edited(INDIVIDUAL, 0, "a", bid=None), "details.hands.0.a.bid"),
        (edited(INDIVIDUAL, 0, "a", nil=True), "details.hands.0.a.nil"),
    ],
)
def test_malformed_hands(hands, field):
    entries, kwargs = individual(hands=hands)
    refused("spades", *entries, **kwargs, code="invalid_details", field=field)


def test_without_details_only_the_scores_count():
    ranking = judge("spades", entry("a", 510), entry("b", 320), entry("c", -40), entry("d", 320))
    assert ranking.places == {"a": 1, "b": 2, "d": 2, "c": 4}
