"""The one hook between the apps: a fact waits for its commit, reaches every listener, and a failing listener
stops no other."""
from __future__ import annotations

import pytest
from django.db import transaction

from arena import announcements
from arena.announcements import BoardLost, announce, silenced, subscribe

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def heard(monkeypatch):
    monkeypatch.setattr(announcements, "_subscribers", announcements.defaultdict(list))
    monkeypatch.setattr(announcements.settings, "ANNOUNCEMENTS_RAISE", False, raising=False)
    got: list[object] = []
    subscribe(BoardLost, got.append)
    return got


def test_a_fact_waits_for_the_commit_and_a_rollback_drops_it(heard):
    with transaction.atomic():
        announce(BoardLost("wizard"))
        assert heard == []
    assert heard == [BoardLost("wizard")]
    with pytest.raises(RuntimeError), transaction.atomic():
        announce(BoardLost("nile"))
        raise RuntimeError
    assert heard == [BoardLost("wizard")]


def test_a_fact_no_write_makes_true_is_delivered_at_once(heard):
    with transaction.atomic():
        announce(BoardLost("wizard"), after_commit=False)
        assert heard == [BoardLost("wizard")]


def test_a_failing_listener_stops_no_other(heard):
    def broken(fact: object) -> None:
        raise ValueError("listener bug")

    announcements._subscribers[BoardLost].insert(0, broken)
    announce(BoardLost("wizard"))
    assert heard == [BoardLost("wizard")]


def test_silenced_drops_what_is_announced_inside_only(heard):
    with silenced():
        announce(BoardLost("wizard"))
    announce(BoardLost("nile"))
    assert heard == [BoardLost("nile")]
