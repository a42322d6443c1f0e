"""Tokaido: places by score, then more achievement cards."""

from __future__ import annotations

import pytest

from .builders import entry, judge, refused


def test_achievements_break_ties_and_full_ties_share():
    # 60/2, 60/3, 55/5, 60/3: b and d lead on score and achievements, a is third, c fourth despite 5 cards
    ranking = judge(
        "tokaido",
        entry("a", 60, achievements=2),
        entry("b", 60, achievements=3),
        entry("c", 55, achievements=5),
        entry("d", 60, achievements=3),
    )
    assert ranking.places == {"b": 1, "d": 1, "a": 3, "c": 4}
    assert ranking.recommended_sides == 4


def test_score_beats_achievements():
    places = judge("tokaido", entry("a", 61, achievements=0), entry("b", 60, achievements=7)).places
    assert places == {"a": 1, "b": 2}


def test_quitter_with_best_score_is_last():
    ranking = judge(
        "tokaido",
        entry("a", 80, achievements=7, quit=True),
        entry("b", 60, achievements=1),
        entry("c", 60, achievements=0),
    )
    assert ranking.places == {"b": 1, "c": 2, "a": 3}


def test_achievements_are_required():
    refused(
        "tokaido", entry("a", 60, achievements=1), entry("b", 50), code="missing_field", field="players.1.achievements"
    )


@pytest.mark.parametrize("value", [8, -1, "3", True, 2.0, None])
def test_achievements_must_be_an_integer_from_0_to_7(value):
    refused(
        "tokaido",
        entry("a", 60, achievements=value),
        entry("b", 50, achievements=1),
        code="invalid_field",
        field="players.0.achievements",
    )


def test_unknown_field():
    refused(
        "tokaido",
        entry("a", 60, achievements=1),
        entry("b", 50, achievements=1, coins=3),
        code="unknown_field",
        field="players.1.coins",
    )


def test_player_count():
    refused("tokaido", entry("a", 60, achievements=1), code="player_count", field="players")
    six = [entry(p, 10, achievements=0) for p in "abcdef"]
    refused("tokaido", *six, code="player_count", field="players")


def test_no_teams():
    refused(
        "tokaido",
        entry("a", 60, achievements=1, team="t"),
        entry("b", 50, achievements=1),
        code="teams_not_allowed",
        field="players.0.team",
    )
