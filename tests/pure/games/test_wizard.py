"""Wizard: rounds per variant, bids, tricks and the score re-added from the details."""

from __future__ import annotations

import copy

import pytest

from arena.games.wizard import cards_per_round, round_score

from .builders import entry, judge, refused


def bt(bid, tricks):
    return {"bid": bid, "tricks": tricks}


# Five rounds, three players: 60 / 3 = 20 cards each round, so the tricks of a round sum to 20.
#   round 0: alice 8/8  -> 20+80  = 100 | bob 5/6  -> -10     | carol 6/6 -> 20+60 = 80   (8+6+6 = 20)
#   round 1: alice 10/9 -> -10         | bob 4/4  -> 20+40=60 | carol 7/7 -> 90          (9+4+7 = 20)
#   round 2: alice 0/0  -> 20          | bob 12/12 -> 140     | carol 6/8 -> -20         (0+12+8 = 20)
#   round 3: alice 20/20 -> 220        | bob 0/0  -> 20       | carol 0/0 -> 20          (20+0+0 = 20)
#   round 4: alice 5/3  -> -20         | bob 7/10 -> -30      | carol 7/7 -> 90          (3+10+7 = 20)
#   totals:  alice 100-10+20+220-20 = 310; bob -10+60+140+20-30 = 180; carol 80+90-20+20+90 = 260
FIVE_ROUNDS = [
    {"alice": bt(8, 8), "bob": bt(5, 6), "carol": bt(6, 6)},
    {"alice": bt(10, 9), "bob": bt(4, 4), "carol": bt(7, 7)},
    {"alice": bt(0, 0), "bob": bt(12, 12), "carol": bt(6, 8)},
    {"alice": bt(20, 20), "bob": bt(0, 0), "carol": bt(0, 0)},
    {"alice": bt(5, 3), "bob": bt(7, 10), "carol": bt(7, 7)},
]
FIVE = {"rounds": "five_rounds"}


def five_rounds_game(rounds=None, alice=310, bob=180, carol=260):
    return dict(
        entries=(entry("alice", alice), entry("bob", bob), entry("carol", carol)),
        details={"rounds": FIVE_ROUNDS if rounds is None else rounds},
    )


def refused_rounds(rounds, code, field, **scores):
    game = five_rounds_game(rounds, **scores)
    return refused("wizard", *game["entries"], variant=FIVE, details=game["details"], code=code, field=field)


def edited(round_number, player, **change):
    rounds = copy.deepcopy(FIVE_ROUNDS)
    rounds[round_number][player].update(change)
    return rounds


def test_round_score():
    assert round_score(2, 2) == 40  # 20 + 10*2
    assert round_score(0, 0) == 20  # an exact zero bid still earns the bonus
    assert round_score(3, 1) == -20  # two tricks off
    assert round_score(0, 2) == -20
    assert round_score(20, 20) == 220


def test_cards_per_round_by_variant():
    assert cards_per_round("standard", 3) == tuple(range(1, 21))
    assert cards_per_round("standard", 4) == tuple(range(1, 16))
    assert cards_per_round("standard", 5) == tuple(range(1, 13))
    assert cards_per_round("standard", 6) == tuple(range(1, 11))
    assert cards_per_round("five_rounds", 3) == (20, 20, 20, 20, 20)
    assert cards_per_round("five_rounds", 6) == (10, 10, 10, 10, 10)
    assert cards_per_round("amigo", 3) == (2, 4, 6, 8, 10, 12, 14, 16, 18, 20)
    assert cards_per_round("amigo", 4) == (1, 3, 5, 7, 9, 11, 12, 13, 14, 15)
    assert cards_per_round("amigo", 5) == (2, 4, 5, 6, 7, 8, 9, 10, 11, 12)


def test_hand_worked_five_rounds_game():
    game = five_rounds_game()
    ranking = judge("wizard", *game["entries"], variant=FIVE, details=game["details"])
    assert ranking.places == {"alice": 1, "carol": 2, "bob": 3}
    assert ranking.variant == {"rounds": "five_rounds"}
    assert ranking.recommended_sides == 4


def one_player_takes_all(deals, players):
    """Player 0 bids and takes every card of each round, the others bid and take 0."""
    return [{p: bt(cards, cards) if i == 0 else bt(0, 0) for i, p in enumerate(players)} for cards in deals]


def test_standard_four_players_fifteen_rounds():
    # a: sum over k=1..15 of (20 + 10k) = 300 + 10*120 = 1500; b, c, d: 15 * 20 = 300 each.
    rounds = one_player_takes_all(range(1, 16), "abcd")
    ranking = judge(
        "wizard", entry("a", 1500), entry("b", 300), entry("c", 300), entry("d", 300), details={"rounds": rounds}
    )
    assert ranking.places == {"a": 1, "b": 2, "c": 2, "d": 2}


def test_amigo_five_players():
    # cards 2,4,5,...,12 sum to 74: a = 10*20 + 10*74 = 940; the others 10 * 20 = 200 each.
    deals = (2, 4, 5, 6, 7, 8, 9, 10, 11, 12)
    rounds = one_player_takes_all(deals, "abcde")
    ranking = judge(
        "wizard",
        entry("a", 940),
        *(entry(p, 200) for p in "bcde"),
        variant={"rounds": "amigo"},
        details={"rounds": rounds},
    )
    assert ranking.places["a"] == 1


def test_amigo_is_not_played_by_six():
    six = [entry(p, 0) for p in "abcdef"]
    refused("wizard", *six, variant={"rounds": "amigo"}, code="variant_player_count", field="variant.rounds")
    assert judge("wizard", *six, variant={"rounds": "standard"}).places["a"] == 1


def test_amigo_four_players_first_round_deals_one_card():
    rounds = one_player_takes_all((1, 3, 5, 7, 9, 11, 12, 13, 14, 15), "abcd")
    rounds[0]["a"] = bt(1, 0)
    rounds[0]["b"] = bt(0, 1)  # a misses by one (-10) and b takes an unbid trick (-10)
    # a: 9 exact rounds over 3+5+7+9+11+12+13+14+15 = 89 cards -> 9*20 + 890 = 1070, minus 10 -> 1060
    # b: 9 exact zero bids -> 180, minus 10 -> 170; c, d: 10 exact zero bids -> 200
    ranking = judge(
        "wizard",
        entry("a", 1060),
        entry("b", 170),
        entry("c", 200),
        entry("d", 200),
        variant={"rounds": "amigo"},
        details={"rounds": rounds},
    )
    assert ranking.places == {"a": 1, "c": 2, "d": 2, "b": 4}


def test_round_count():
    refused_rounds(FIVE_ROUNDS[:3], "round_count", "details.rounds")
    refused_rounds(FIVE_ROUNDS + FIVE_ROUNDS[:1], "round_count", "details.rounds")
    # the same five rounds are the wrong count for the standard variant (20 rounds for 3 players)
    game = five_rounds_game()
    refused("wizard", *game["entries"], details=game["details"], code="round_count", field="details.rounds")


def test_tricks_must_sum_to_the_cards_dealt():
    refusal = refused_rounds(edited(2, "bob", tricks=11), "tricks_total", "details.rounds.2")
    # The third round (index 2) is "Round 3" for the person reading it; the path keeps the index.
    assert refusal.message.startswith("Round 3 dealt 20 cards each")


@pytest.mark.parametrize("bid", [21, -1])
def test_bid_out_of_range(bid):
    refused_rounds(edited(1, "carol", bid=bid), "bid_out_of_range", "details.rounds.1.carol.bid")


@pytest.mark.parametrize("tricks", [21, -1])
def test_tricks_out_of_range(tricks):
    refused_rounds(edited(4, "alice", tricks=tricks), "tricks_out_of_range", "details.rounds.4.alice.tricks")


def test_score_mismatch_points_at_the_player():
    refused_rounds(None, "score_mismatch", "players.2.score", carol=250)


def test_players_in_details_must_be_exactly_the_players():
    rounds = copy.deepcopy(FIVE_ROUNDS)
    rounds[3]["dave"] = bt(0, 0)
    refused_rounds(rounds, "unknown_player_in_details", "details.rounds.3.dave")
    rounds = copy.deepcopy(FIVE_ROUNDS)
    del rounds[0]["bob"]
    refused_rounds(rounds, "missing_player_in_details", "details.rounds.0")


@pytest.mark.parametrize(
    ("rounds", "field"),
    [
        ("five", "details.rounds"),
        ({"0": FIVE_ROUNDS[0]}, "details.rounds"),
        ([*FIVE_ROUNDS[:4], [1, 2]], "details.rounds.4"),
        (edited(0, "bob", bid="5"), "details.rounds.0.bob.bid"),
        (edited(0, "bob", bid=True), "details.rounds.0.bob.bid"),
        (edited(0, "bob", tricks=6.0), "details.rounds.0.bob.tricks"),
        (edited(0, "bob", bet=5), "details.rounds.0.bob.bet"),
    ],
)
def test_malformed_rounds(rounds, field):
    refused_rounds(rounds, "invalid_details", field)


def test_record_without_tricks():
    rounds = copy.deepcopy(FIVE_ROUNDS)
    rounds[1]["alice"] = {"bid": 10}
    refused_rounds(rounds, "invalid_details", "details.rounds.1.alice.tricks")


def test_quitter_with_details_is_still_placed_last():
    game = five_rounds_game()
    _, bob, carol = game["entries"]
    ranking = judge("wizard", entry("alice", 310, quit=True), bob, carol, variant=FIVE, details=game["details"])
    assert ranking.places == {"carol": 1, "bob": 2, "alice": 3}
