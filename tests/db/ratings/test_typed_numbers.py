"""Numbers worked by hand from docs/ratings.md, through the batch path (POST /api/v1/games/batch/, then the Elo
stage), at K 40 and K 20 and across the 10- and 20-game edges.

How a player gets to 10 or 20 games without moving: an everyone-tied game changes no rating yet counts as played
(docs/ratings.md, "Everyone tied"), so a run of tied tables brings players to the edge still at exactly 1500.

Arithmetic in the comments: E(a, b) = 1 / (1 + 10^((b - a) / 400)); powers of ten to 6+ digits.
"""

from __future__ import annotations

import pytest

from ratings.models import Rating, RatingChange
from tests.conftest import game_body, player
from tests.db.ratings.helpers import post, rate_all

pytestmark = pytest.mark.django_db


def elo(handle: str, title: str) -> float:
    return Rating.objects.get(player__handle=handle, title=title).elo


def change(handle: str, table_id: str) -> RatingChange:
    return RatingChange.objects.get(player__handle=handle, game__table_id=table_id)


def tokaido(table_id: str, *results: tuple[str, int]) -> dict:
    return game_body("tokaido", [player(h, s, achievements=1) for h, s in results], table_id=table_id)


def wizard(table_id: str, *results: tuple[str, int]) -> dict:
    return game_body("wizard", [player(h, s) for h, s in results], table_id=table_id)


def test_the_tenth_game_is_at_k_60_and_the_eleventh_at_k_40(api):
    games = [tokaido(f"tie-{i}", ("a", 30), ("b", 30)) for i in range(9)]  # 9 ties: a, b at 1500, 9 games
    games.append(tokaido("g10", ("a", 40), ("b", 30)))  # a's and b's 10th game
    games.append(tokaido("g11", ("a", 40), ("c", 30)))  # a's 11th, c's 1st
    games.append(tokaido("g12", ("b", 40), ("a", 30)))  # b's 11th, a's 12th
    post(api, games)
    rate_all()

    # Nine ties: nothing moved, nine games counted.
    assert Rating.objects.get(player__handle="a", title="tokaido").games == 12
    assert change("a", "tie-8").delta == 0.0 and change("a", "tie-8").games_before == 8

    # g10: 9 games before -> K 60, P(2) = 1, E = 0.5: a 1500 + 60 * 0.5 = 1530, b 1470.
    assert (change("a", "g10").k, change("a", "g10").games_before) == (60, 9)
    assert change("a", "g10").after == 1530.0 and change("b", "g10").after == 1470.0

    # g11: a has 10 games before -> K 40; c is new -> K 60.
    # E(1530, 1500) = 1 / (1 + 10^(-30/400)) = 1 / (1 + 10^-0.075) = 1 / (1 + 0.841395) = 0.543066
    # a: 40 * (1 - 0.543066) = 40 * 0.456934 = +18.2773 -> 1548.2773
    # c: 60 * (0 - 0.456934) = -27.4160 -> 1472.5840
    assert (change("a", "g11").k, change("a", "g11").games_before) == (40, 10)
    assert change("c", "g11").k == 60
    assert change("a", "g11").delta == pytest.approx(18.2773, abs=1e-4)
    assert change("a", "g11").after == pytest.approx(1548.2773, abs=1e-4)
    assert change("c", "g11").after == pytest.approx(1472.5840, abs=1e-4)

    # g12: b (1470, 10 games before -> K 40) beats a (1548.2773, 11 before -> K 40).
    # E(1470, 1548.2773) = 1 / (1 + 10^(78.2773/400)) = 1 / (1 + 10^0.195693) = 1 / (1 + 1.569254) = 0.389218
    # b: 40 * (1 - 0.389218) = 40 * 0.610782 = +24.4313 -> 1494.4313
    # a: 40 * (0 - 0.610782) = -24.4313 -> 1523.8461
    assert (change("b", "g12").k, change("b", "g12").games_before) == (40, 10)
    assert change("b", "g12").delta == pytest.approx(24.4313, abs=1e-4)
    assert elo("b", "tokaido") == pytest.approx(1494.4313, abs=1e-4)
    assert elo("a", "tokaido") == pytest.approx(1523.8461, abs=1e-4)
    assert elo("c", "tokaido") == pytest.approx(1472.5840, abs=1e-4)


def test_the_twentieth_game_is_at_k_40_and_the_twenty_first_at_k_20_in_a_four_player_wizard(api):
    three = (("w1", 40), ("w2", 40), ("w3", 40))
    games = [wizard(f"tie-{i}", *three) for i in range(19)]  # w1..w3: 1500, 19 games
    games.append(wizard("g20", ("w1", 100), ("w2", 60), ("w3", 40), ("w4", 0)))
    games.append(wizard("g21", ("w4", 100), ("w3", 60), ("w2", 40), ("w1", 0)))
    post(api, games)
    rate_all()

    # g20, places 1..4, everyone at 1500 so every E = 0.5; rec 4, n 4 -> P = 2/4 = 0.5.
    # w1..w3 have 19 games before -> K 40; w4 is new -> K 60.
    # w1: 40 * 0.5 * (0.5 + 0.5 + 0.5)   = +30 -> 1530
    # w2: 40 * 0.5 * (-0.5 + 0.5 + 0.5)  = +10 -> 1510
    # w3: 40 * 0.5 * (-0.5 - 0.5 + 0.5)  = -10 -> 1490
    # w4: 60 * 0.5 * (-0.5 - 0.5 - 0.5)  = -45 -> 1455
    assert [change(h, "g20").k for h in ("w1", "w2", "w3", "w4")] == [40, 40, 40, 60]
    assert [change(h, "g20").after for h in ("w1", "w2", "w3", "w4")] == [1530.0, 1510.0, 1490.0, 1455.0]

    # g21, places reversed: w4 1st, w3 2nd, w2 3rd, w1 4th. w1..w3 now have 20 games before -> K 20; w4 K 60.
    # The expected scores (lower side first):
    #   E(1455, 1490) = 1 / (1 + 10^(35/400) = 1.223207) = 0.449801
    #   E(1455, 1510) = 1 / (1 + 10^(55/400) = 1.372461) = 0.421503
    #   E(1455, 1530) = 1 / (1 + 10^(75/400) = 1.539927) = 0.393712
    #   E(1490, 1510) = 1 / (1 + 10^(20/400) = 1.122018) = 0.471249   (and E(1510, 1530), the same 20 gap)
    #   E(1490, 1530) = 1 / (1 + 10^(40/400) = 1.258925) = 0.442688
    # w4 beats all three: (1 - 0.393712) + (1 - 0.421503) + (1 - 0.449801) = 1.734984
    #     60 * 0.5 * 1.734984 = +52.0495 -> 1507.0495
    # w3 beats w2, w1, loses to w4: (1 - 0.442688) + (1 - 0.471249) - (1 - 0.449801) = 0.535863
    #     20 * 0.5 * 0.535863 = +5.3586 -> 1495.3586
    # The other way round, E(b, a) = 1 - E(a, b): E(1510, 1490) = 0.528751, E(1510, 1455) = 0.578497,
    #   E(1530, 1510) = 0.528751, E(1530, 1490) = 0.557312, E(1530, 1455) = 0.606288.
    # w2 beats w1, loses to w3 and w4: (1 - 0.471249) + (0 - 0.528751) + (0 - 0.578497) = -0.578497
    #     20 * 0.5 * -0.578497 = -5.7850 -> 1504.2150
    # w1 loses to all: -(0.528751 + 0.557312 + 0.606288) = -1.692350;  20 * 0.5 * -1.692350 = -16.9235 -> 1513.0765
    assert [change(h, "g21").k for h in ("w1", "w2", "w3", "w4")] == [20, 20, 20, 60]
    assert [change(h, "g21").games_before for h in ("w1", "w2", "w3", "w4")] == [20, 20, 20, 1]
    expected = {"w1": 1513.0765, "w2": 1504.2150, "w3": 1495.3586, "w4": 1507.0495}
    for handle, after in expected.items():
        assert elo(handle, "wizard") == pytest.approx(after, abs=1e-4), handle
    assert change("w4", "g21").delta == pytest.approx(52.0495, abs=1e-4)
    assert change("w1", "g21").delta == pytest.approx(-16.9235, abs=1e-4)


def test_a_settled_quitter_pays_k_20_and_the_ten_points(api):
    games = [tokaido(f"tie-{i}", ("q", 30), ("r", 30)) for i in range(20)]  # q, r: 1500, 20 games
    games.append(
        game_body(
            "tokaido", [player("q", 50, achievements=1, quit=True), player("r", 10, achievements=1)], table_id="quit"
        )
    )
    post(api, games)
    rate_all()
    # q quit: placed last whatever the score. K 20, P 1, E 0.5: q 20 * (0 - 0.5) - 10 = -20 -> 1480; r +10 -> 1510.
    assert (change("q", "quit").place, change("r", "quit").place) == (2, 1)
    assert change("q", "quit").k == 20
    assert (elo("q", "tokaido"), elo("r", "tokaido")) == (1480.0, 1510.0)
