"""Tiny builders so each test states only the numbers it is about."""

from __future__ import annotations

from typing import Any

import pytest

from arena.games import get_game
from arena.games.results import Entry, Ranking, Result, RuleViolation


def entry(
    player: str, score: int | None = None, *, quit: bool = False, team: str | None = None, **fields: Any
) -> Entry:
    return Entry(player=player, score=score, quit=quit, team=team, fields=fields)


def result(
    *entries: Entry, variant: dict[str, Any] | None = None, rated: bool = True, details: dict[str, Any] | None = None
) -> Result:
    return Result(variant=variant or {}, rated=rated, entries=tuple(entries), details=details or {})


def judge(title: str, *entries: Entry, **kwargs: Any) -> Ranking:
    return get_game(title).judge(result(*entries, **kwargs))


def refused(title: str, *entries: Entry, code: str, field: str | None, **kwargs: Any) -> RuleViolation:
    """Judge and assert the result is refused with exactly this code and field path."""
    with pytest.raises(RuleViolation) as caught:
        judge(title, *entries, **kwargs)
    assert (caught.value.code, caught.value.field) == (code, field), caught.value.message
    assert caught.value.message
    return caught.value
