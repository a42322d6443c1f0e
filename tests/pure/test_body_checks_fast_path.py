"""The C-speed answers the body checks give before walking a body (arena/api/game_payload.py
``_plainly_storable``, infra/api/json_budget.py ``game_values``) never clear what the walk would refuse.

Each case is worked by hand: what PostgreSQL cannot store (docs/api.md, a NUL or an unpaired surrogate anywhere, a
key included; nesting past 32 levels) and how many JSON values a body holds."""

from __future__ import annotations

import pytest

from arena.api.game_payload import MAX_DEPTH, _plainly_storable, refused_part
from infra.api.json_budget import game_values


def nest(levels: int) -> dict:
    """``levels`` objects, one inside the other."""
    inner: dict = {}
    for _ in range(levels - 1):
        inner = {"a": inner}
    return inner


ORDINARY = {
    "table_id": "T-1",
    "game": "wizard",
    "players": [{"player": "ann", "ip": "203.0.113.1", "score": 30}, {"player": "bob", "ip": "::1", "score": 20}],
    "details": {"note": "é, ü and [brackets] in text"},
}


def test_an_ordinary_body_is_cleared_without_a_walk():
    assert _plainly_storable(ORDINARY) is True
    assert refused_part(ORDINARY) is None


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"table_id": "T\x00-1"}, "table_id"),
        ({"details": {"rounds": [{"p\x00": {}}]}}, "details.rounds.0.p\x00"),
        ({"details": {"note": "\udc00 lone"}}, "details.note"),
        ({"details": {"\ud83d": 1}}, "details.\ud83d"),
        ({"details": nest(32)}, "details" + ".a" * 31),  # an object on level 32
    ],
)
def test_what_the_walk_refuses_is_never_cleared(body, path):
    assert _plainly_storable(body) is False
    assert refused_part(body)[0] == path


@pytest.mark.parametrize(
    "body",
    [
        {"note": "a backslash and u0000: \\u0000"},  # written as \\u0000: looks like a NUL, is not one
        {"note": "[" * (MAX_DEPTH + 1)},  # brackets in text, counted by the quick test, not nesting
        {"details": nest(31), "players": []},  # levels 0..31, allowed; 33 containers, too many for the quick count
        {1: "a key that is no string"},  # orjson will not write it
        {"score": 2**70},  # nor this
    ],
)
def test_what_the_quick_test_cannot_clear_goes_to_the_walk_which_allows_it(body):
    assert _plainly_storable(body) is False
    assert refused_part(body) is None


def test_exactly_max_depth_objects_are_cleared_without_a_walk():
    assert _plainly_storable(nest(MAX_DEPTH)) is True  # levels 0..31: the walk allows it too
    assert refused_part(nest(MAX_DEPTH)) is None


@pytest.mark.parametrize(
    ("body", "values"),
    [
        ({"a": [1, 2, {"b": "x"}]}, 6),  # the object, the list, 1, 2, the inner object, "x"
        (ORDINARY, 14),  # the body, 2 strings, the list, 2 players of 3 values each, the details and its note
        ([[], [], []], 4),
    ],
)
def test_game_values_is_never_below_the_count_and_exact_past_the_limit(body, values):
    assert game_values(body, 1000) >= values
    assert game_values(body, values) <= values  # exactly at the limit: never refused
    assert game_values(body, values - 1) > values - 1  # one value over the limit: refused, whichever path
