"""The spec's worked examples (docs/ratings.md) explained term by term. Every expected number is worked out by hand
from the spec's arithmetic (shown in the comments), never read off the code; six decimals, as the spec gives E."""

from __future__ import annotations

import pytest

from ratings.elo import EloConfig
from ratings.explain import (
    BELOW_LOSE,
    BELOW_TIE,
    EVERYONE_TIED,
    FLOOR,
    HANABOT,
    PERFECT,
    QUIT_LAST,
    TABLE_ROW,
    StoredSeat,
    explain_competitive,
    explain_hanabi,
    k_reason,
)

HAND = 1e-5  # the hand arithmetic keeps six decimals of E
TERM = 1e-4  # a term is K (up to 60) times such an E: its last digit may be off by 60 · 5e-7


def seat(player, side, place, before, delta, k=60, games=0, quit=False, **extra):
    return StoredSeat(
        player=player, side=side, place=place, quit=quit, before=before, delta=delta, k=k, games_before=games, **extra
    )


def by_player(explanation):
    return {s.player: s for s in explanation.seats}


def terms(explained_seat):
    return [(t.against, t.rating, t.expected, t.score, t.term) for t in explained_seat.terms]


def test_example_1_two_new_players():
    # E(1500, 1500) = 0.5; A: 60 · 1 · (1 − 0.5) = +30; B: 60 · (0 − 0.5) = −30.
    ex = explain_competitive([seat("A", 0, 1, 1500.0, 30.0), seat("B", 1, 2, 1500.0, -30.0)], 4)
    a, b = by_player(ex)["A"], by_player(ex)["B"]
    assert ex.multiplier == 1.0 and ex.sides == 2
    assert terms(a) == [("B", 1500.0, 0.5, 1.0, 30.0)]
    assert terms(b) == [("A", 1500.0, 0.5, 0.0, -30.0)]


def test_example_2_four_new_players_in_wizard():
    # P(4) = 2/4 = 0.5; every E = 0.5; each duel is 60 · 0.5 · (S − 0.5) = ±15.
    deltas = {"p1": 45.0, "p2": 15.0, "p3": -15.0, "p4": -45.0}
    seats = [seat(name, i, i + 1, 1500.0, deltas[name]) for i, name in enumerate(deltas)]
    ex = by_player(explain_competitive(seats, 4))
    assert [t.term for t in ex["p1"].terms] == [15.0, 15.0, 15.0]
    assert [(t.against, t.score, t.term) for t in ex["p2"].terms] == [
        ("p1", 0.0, -15.0),
        ("p3", 1.0, 15.0),
        ("p4", 1.0, 15.0),
    ]
    assert [t.term for t in ex["p3"].terms] == [-15.0, -15.0, 15.0]
    assert [t.term for t in ex["p4"].terms] == [-15.0, -15.0, -15.0]
    for name, delta in deltas.items():
        assert ex[name].terms_sum == delta and ex[name].quit_penalty == 0.0 and ex[name].delta == delta


def test_example_3_unequal_ratings_and_k():
    # E(1600, 1400) = 1 / (1 + 10^−0.5) = 0.759747. A (25 games, K 20): 20 · 0.240253 = +4.80506.
    # B (5 games, K 60): 60 · (0 − 0.240253) = −14.41518.
    ex = by_player(
        explain_competitive(
            [seat("A", 0, 1, 1600.0, 4.80506, k=20, games=25), seat("B", 1, 2, 1400.0, -14.41518, k=60, games=5)], 4
        )
    )
    (ta,), (tb,) = ex["A"].terms, ex["B"].terms
    assert ta.against == "B" and ta.rating == 1400.0 and ta.score == 1.0
    assert ta.expected == pytest.approx(0.759747, abs=HAND)
    assert ta.term == pytest.approx(4.80506, abs=TERM)
    assert tb.expected == pytest.approx(0.240253, abs=HAND)
    assert tb.term == pytest.approx(-14.41518, abs=TERM)
    assert ex["A"].k == 20 and "25 rated games" in ex["A"].k_reason and "20 or more" in ex["A"].k_reason
    assert ex["B"].k == 60 and "fewer than 10" in ex["B"].k_reason


def test_example_7_the_quitter_pays_10_more():
    # As example 2: the quitter's three duels are −15 each (−45), then the penalty −10: −55.
    deltas = {"p1": 45.0, "p2": 15.0, "p3": -15.0, "p4": -55.0}
    seats = [seat(name, i, i + 1, 1500.0, deltas[name], quit=name == "p4") for i, name in enumerate(deltas)]
    ex = by_player(explain_competitive(seats, 4))
    assert ex["p4"].terms_sum == -45.0 and ex["p4"].quit_penalty == -10.0 and ex["p4"].delta == -55.0
    assert QUIT_LAST in ex["p4"].rules
    assert ex["p3"].quit_penalty == 0.0 and ex["p3"].terms_sum == -15.0


def test_example_8_five_players_beyond_rec():
    # P(5) = 2 · (4 − 1) / (4 · (5 − 1)) = 6/16 = 0.375; each duel 60 · 0.375 · (±0.5) = ±11.25.
    deltas = [45.0, 22.5, 0.0, -22.5, -45.0]
    seats = [seat(f"p{i + 1}", i, i + 1, 1500.0, d) for i, d in enumerate(deltas)]
    explanation = explain_competitive(seats, 4)
    assert explanation.multiplier == 0.375
    ex = by_player(explanation)
    assert [t.term for t in ex["p1"].terms] == [11.25] * 4
    assert [t.term for t in ex["p3"].terms] == [-11.25, -11.25, 11.25, 11.25]
    assert [ex[f"p{i + 1}"].terms_sum for i in range(5)] == deltas


def test_example_9_spades_partnerships_team_against_team():
    # Two sides (rec 2, P = 1), each the mean of its members (1500): a, b 60 · (1 − 0.5) = +30; c, d −30.
    seats = [
        seat("a", 0, 1, 1500.0, 30.0),
        seat("b", 0, 1, 1500.0, 30.0),
        seat("c", 1, 2, 1500.0, -30.0),
        seat("d", 1, 2, 1500.0, -30.0),
    ]
    ex = by_player(explain_competitive(seats, 2))
    assert ex["a"].team == ("a", "b") and ex["a"].side_rating == 1500.0
    assert [(t.against, t.against_players, t.score, t.term) for t in ex["a"].terms] == [
        ("c & d", ("c", "d"), 1.0, 30.0)
    ]
    assert [(t.against, t.term) for t in ex["d"].terms] == [("a & b", -30.0)]


def test_a_team_is_rated_as_its_mean():
    # {a 1600, b 1400} (mean 1500) against {c 1550, d 1450} (mean 1500): E = 0.5, P = 1; a, b win: 60 · 0.5 = 30.
    seats = [
        seat("a", 0, 1, 1600.0, 30.0),
        seat("b", 0, 1, 1400.0, 30.0),
        seat("c", 1, 2, 1550.0, -30.0),
        seat("d", 1, 2, 1450.0, -30.0),
    ]
    ex = by_player(explain_competitive(seats, 2))
    assert ex["b"].side_rating == 1500.0 and ex["b"].terms[0].rating == 1500.0 and ex["b"].terms[0].term == 30.0


def test_example_11_four_players_across_k():
    # w4 1455 (K 60) wins three duels: 30 · (1 − 0.393712) = 18.18864, 30 · (1 − 0.421503) = 17.35491,
    # 30 · (1 − 0.449801) = 16.50597, sum 52.04952. w1 1530 (K 20) loses three: 10 · (−0.528751 − 0.557312
    # − 0.606288) = −16.92351.
    seats = [
        seat("w4", 0, 1, 1455.0, 52.04952, k=60, games=1),
        seat("w3", 1, 2, 1490.0, 5.35863, k=20, games=20),
        seat("w2", 2, 3, 1510.0, -5.78497, k=20, games=20),
        seat("w1", 3, 4, 1530.0, -16.92350, k=20, games=20),
    ]
    ex = by_player(explain_competitive(seats, 4))
    # Duels in side order (w3, w2, w1): 30 · (1 − 0.449801), 30 · (1 − 0.421503), 30 · (1 − 0.393712).
    assert [t.term for t in ex["w4"].terms] == pytest.approx([16.50597, 17.35491, 18.18864], abs=TERM)
    assert ex["w4"].terms_sum == pytest.approx(52.04952, abs=TERM)
    assert [t.against for t in ex["w1"].terms] == ["w4", "w3", "w2"]
    assert [t.term for t in ex["w1"].terms] == pytest.approx([-6.06288, -5.57312, -5.28751], abs=TERM)
    assert ex["w3"].terms_sum == pytest.approx(5.35863, abs=TERM)


def test_everyone_tied_moves_nobody():
    # Three players all placed 1: the formula's S − E is zero here anyway for equal ratings, but with 1600 vs 1400
    # it would not be; the spec moves nobody, so every term is 0.
    seats = [seat("a", 0, 1, 1600.0, 0.0), seat("b", 1, 1, 1400.0, 0.0), seat("c", 2, 1, 1500.0, 0.0)]
    explanation = explain_competitive(seats, 4)
    assert explanation.rules == (EVERYONE_TIED,)
    for s in explanation.seats:
        assert all(t.score == 0.5 and t.term == 0.0 for t in s.terms) and s.terms_sum == 0.0


def test_the_floor_gives_back_what_it_stopped():
    # Floor 1480: B 1500 would lose 30 (to 1470); it stops at 1480, so the stored delta is −20 and the floor +10.
    config = EloConfig(floor=1480.0)
    ex = by_player(explain_competitive([seat("A", 0, 1, 1500.0, 30.0), seat("B", 1, 2, 1500.0, -20.0)], 4, config))
    assert ex["B"].terms_sum == -30.0 and ex["B"].floor == 10.0 and FLOOR in ex["B"].rules
    assert ex["A"].floor == 0.0


def test_example_4_hanabi_table_row():
    # Class 50, 3 players at 1500, score 22: B = 1468; E(1500, 1468) = 1 / (1 + 10^−0.08) = 0.545922;
    # each 60 · (0.5 − 0.545922) = −2.75532.
    seats = [seat(p, 0, None, 1500.0, -2.75532) for p in ("a", "b", "c")]
    ex = explain_hanabi(seats, deck="normal", rating_score=22, bot=1468.0)
    assert ex.team_rating == 1500.0
    row = ex.hanabot
    assert (row.variant_class, row.team_size, row.score, row.threshold, row.rule, row.rating) == (
        "50",
        3,
        22,
        18,
        TABLE_ROW,
        1468.0,
    )
    assert not row.perfect_score_rule
    (term,) = ex.seats[0].terms
    assert term.against == HANABOT and term.score == 0.5
    assert term.expected == pytest.approx(0.545922, abs=HAND)
    assert term.term == pytest.approx(-2.75532, abs=TERM)
    assert ex.seats[0].place is None and ex.seats[0].quit_penalty == 0.0


def test_example_5_hanabi_below_the_threshold():
    # Score 12 < 18: B = 1000, a tie; E(1500, 1000) = 1 / (1 + 10^−1.25) = 0.946760; 60 · (0.5 − 0.946760) = −26.8056.
    ex = explain_hanabi([seat(p, 0, None, 1500.0, -26.8056) for p in "ab"], deck="normal", rating_score=12, bot=1000.0)
    assert ex.hanabot.rule == BELOW_TIE and ex.rules == (BELOW_TIE,)
    assert ex.seats[0].terms[0].expected == pytest.approx(0.946760, abs=HAND)
    assert ex.seats[0].terms[0].term == pytest.approx(-26.8056, abs=TERM)


def test_example_6_hanabi_perfect_score_is_a_win():
    # 2100 each (K 20), score 25: B = 2040, E = 1 / (1 + 10^−0.15) = 0.585499, 0.5 − E < 0 so S = 1:
    # 20 · (1 − 0.585499) = +8.29002.
    seats = [seat(p, 0, None, 2100.0, 8.29002, k=20, games=30) for p in "ab"]
    ex = explain_hanabi(seats, deck="normal", rating_score=25, bot=2040.0)
    assert ex.hanabot.perfect_score_rule and PERFECT in ex.rules and PERFECT in ex.seats[0].rules
    (term,) = ex.seats[0].terms
    assert term.score == 1.0 and term.expected == pytest.approx(0.585499, abs=HAND)
    assert term.term == pytest.approx(8.29002, abs=TERM)


def test_example_6_with_score_24_stays_a_tie():
    # B = 1843: E = 1 / (1 + 10^−0.6425) = 0.814484; 20 · (0.5 − 0.814484) = −6.28968.
    ex = explain_hanabi(
        [seat(p, 0, None, 2100.0, -6.28968, k=20, games=30) for p in "ab"], deck="normal", rating_score=24, bot=1843.0
    )
    assert not ex.hanabot.perfect_score_rule
    assert ex.seats[0].terms[0].score == 0.5 and ex.seats[0].terms[0].term == pytest.approx(-6.28968, abs=TERM)


def test_hanabi_older_rule_loses_to_the_weakest_bot():
    # lose_to_weakest: score 12, B = the table at (50, 2, 18) = 1140, S = 0. E(1500, 1140) = 1 / (1 + 10^−0.9)
    # = 1 / 1.125893 = 0.888184; 60 · (0 − 0.888184) = −53.29104.
    ex = explain_hanabi([seat(p, 0, None, 1500.0, -53.29104) for p in "ab"], deck="normal", rating_score=12, bot=1140.0)
    assert ex.hanabot.rule == BELOW_LOSE
    assert ex.seats[0].terms[0].score == 0.0 and ex.seats[0].terms[0].term == pytest.approx(-53.29104, abs=TERM)


def test_a_hanabi_quit_costs_nothing_extra():
    ex = explain_hanabi(
        [seat("a", 0, None, 1500.0, -26.8056, quit=True), seat("b", 0, None, 1500.0, -26.8056)],
        deck="normal",
        rating_score=12,
        bot=1000.0,
    )
    assert ex.seats[0].quit and ex.seats[0].quit_penalty == 0.0 and QUIT_LAST not in ex.seats[0].rules


@pytest.mark.parametrize(
    ("games", "k", "bracket"),
    [
        (0, 60, "fewer than 10"),
        (9, 60, "fewer than 10"),
        (10, 40, "10 to 19"),
        (19, 40, "10 to 19"),
        (20, 20, "20 or more"),
    ],
)
def test_k_reason_names_the_bracket(games, k, bracket):
    assert bracket in k_reason(k, games)
    assert "reset" in k_reason(k, games, reset_before=True)
    assert "settings have changed" in k_reason(k + 1, games)


def test_the_four_player_example_of_docs_ratings_md():
    # docs/ratings.md, "A four-player game, explained": the numbers of its table, by hand.
    seats = [
        seat("ana", 0, 1, 1540.0, 25.44478, k=40, games=12),
        seat("bo", 1, 2, 1500.0, 15.0, games=3),
        seat("cy", 2, 3, 1460.0, -8.16717),
        seat("di", 3, 4, 1500.0, -25.0, k=20, games=25, quit=True),
    ]
    ex = by_player(explain_competitive(seats, 4))
    assert [t.term for t in ex["ana"].terms] == pytest.approx([8.85376, 7.73726, 8.85376], abs=TERM)
    assert [t.term for t in ex["bo"].terms] == pytest.approx([-13.28064, 13.28064, 15.0], abs=TERM)
    assert [t.term for t in ex["cy"].terms] == pytest.approx([-11.60589, -13.28064, 16.71936], abs=TERM)
    assert [t.term for t in ex["di"].terms] == pytest.approx([-4.42688, -5.0, -5.57312], abs=TERM)
    assert (round(ex["ana"].terms_sum, 2), round(ex["cy"].terms_sum, 2)) == (25.44, -8.17)
    assert ex["di"].terms_sum == pytest.approx(-15.0, abs=1e-9) and ex["di"].quit_penalty == -10.0


def test_the_hanabi_example_of_docs_ratings_md():
    # docs/ratings.md, "A Hanabi game, explained": T = 1540, B = 1645, E = 0.353331, S − E = 0.146669.
    seats = [
        seat("p", 0, None, 1620.0, 2.93338, k=20, games=30),
        seat("q", 0, None, 1580.0, 5.86675, k=40, games=15),
        seat("r", 0, None, 1500.0, 8.80013, games=2),
        seat("s", 0, None, 1460.0, 8.80013),
    ]
    ex = explain_hanabi(seats, deck="normal", rating_score=23, bot=1645.0)
    assert ex.team_rating == 1540.0 and ex.hanabot.rule == TABLE_ROW and not ex.hanabot.perfect_score_rule
    assert ex.seats[0].terms[0].expected == pytest.approx(0.353331, abs=HAND)
    assert [round(s.terms[0].term, 2) for s in ex.seats] == [2.93, 5.87, 8.80, 8.80]
