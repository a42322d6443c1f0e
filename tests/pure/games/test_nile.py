"""Nile DeLuxor: the smallest crop pile decides, then the next one."""

from __future__ import annotations

import pytest

from arena.games.nile import storage_key

from .builders import entry, judge, refused


def test_storage_key_sorts_the_piles():
    assert storage_key([3, 1, 4, 1, 5]) == (1, 1, 3, 4, 5)


def test_comparison_examples():
    # alice [3,1,4,1,5] -> (1,1,3,4,5); bob [2,2,2,2,2] -> (2,2,2,2,2); carol [1,6,1,3,3] -> (1,1,3,3,6)
    # bob wins on the smallest pile (2 > 1); alice beats carol at the fourth pile (4 > 3) despite carol's 6.
    ranking = judge(
        "nile",
        entry("alice", crops=[3, 1, 4, 1, 5]),
        entry("bob", crops=[2, 2, 2, 2, 2]),
        entry("carol", crops=[1, 6, 1, 3, 3]),
    )
    assert ranking.places == {"bob": 1, "alice": 2, "carol": 3}


def test_equal_piles_in_any_order_share_a_place():
    ranking = judge(
        "nile",
        entry("alice", crops=[3, 1, 4, 1, 5]),
        entry("dave", crops=[5, 4, 3, 1, 1]),
        entry("erin", crops=[0, 9, 9, 9, 9]),
        entry("bob", crops=[2, 2, 2, 2, 2]),
    )
    assert ranking.places == {"bob": 1, "alice": 2, "dave": 2, "erin": 4}


def test_score_is_ignored_for_places_but_checked():
    # the smallest piles are 1 and 2: the scores, when sent, must say so
    ranking = judge("nile", entry("a", 1, crops=[1, 5, 5, 5, 5]), entry("b", 2, crops=[2, 2, 2, 2, 2]))
    assert ranking.places == {"b": 1, "a": 2}
    refused(
        "nile",
        entry("a", 5, crops=[1, 5, 5, 5, 5]),
        entry("b", crops=[2, 2, 2, 2, 2]),
        code="score_mismatch",
        field="players.0.score",
    )


@pytest.mark.parametrize(("players", "piles"), [(2, 5), (3, 5), (4, 5), (5, 6), (6, 7)])
def test_crop_count_by_player_count(players, piles):
    entries = [entry(f"p{i}", crops=[i] * piles) for i in range(players)]
    assert judge("nile", *entries).places[f"p{players - 1}"] == 1
    wrong = [entry(f"p{i}", crops=[i] * (piles + 1)) for i in range(players)]
    refused("nile", *wrong, code="invalid_field", field="players.0.crops")


@pytest.mark.parametrize("crops", [[1, 2, 3, 4, -1], [1, 2, 3, 4, True], [1, 2, 3, 4, 2.0], "12345", 5, None])
def test_crops_must_be_a_list_of_counts(crops):
    refused(
        "nile",
        entry("a", crops=[1, 1, 1, 1, 1]),
        entry("b", crops=crops),
        code="invalid_field",
        field="players.1.crops",
    )


def test_crops_are_required():
    refused("nile", entry("a", crops=[1, 1, 1, 1, 1]), entry("b", 1), code="missing_field", field="players.1.crops")


def test_quitter_with_the_best_storage_is_last():
    ranking = judge(
        "nile",
        entry("a", crops=[9, 9, 9, 9, 9], quit=True),
        entry("b", crops=[1, 1, 1, 1, 1]),
        entry("c", crops=[0, 1, 1, 1, 1]),
    )
    assert ranking.places == {"b": 1, "c": 2, "a": 3}
    assert ranking.quitter == "a"


def test_nile_has_no_details():
    refused(
        "nile",
        entry("a", crops=[1] * 5),
        entry("b", crops=[2] * 5),
        details={"rounds": 3},
        code="invalid_details",
        field="details.rounds",
    )
