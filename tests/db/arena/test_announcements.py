"""The one hook between the apps: a fact waits for its commit, reaches every listener, and a failing listener
stops no other. And the one hand-off from a service to its own app's workers, which waits for the commit too."""

from __future__ import annotations

import pytest
from django.db import transaction

from infra import announcements, handoffs
from infra.announcements import GamesRecorded, announce, silenced, subscribe

pytestmark = pytest.mark.django_db(transaction=True)


def recorded(*titles: str) -> GamesRecorded:
    return GamesRecorded(frozenset(titles))


@pytest.fixture
def heard(monkeypatch):
    monkeypatch.setattr(announcements, "_subscribers", announcements.defaultdict(list))
    monkeypatch.setattr(announcements.settings, "ANNOUNCEMENTS_RAISE", False, raising=False)
    got: list[object] = []
    subscribe(GamesRecorded, got.append)
    return got


def test_a_fact_waits_for_the_commit_and_a_rollback_drops_it(heard):
    with transaction.atomic():
        announce(recorded("wizard"))
        assert heard == []
    assert heard == [recorded("wizard")]
    with pytest.raises(RuntimeError), transaction.atomic():
        announce(recorded("nile"))
        raise RuntimeError
    assert heard == [recorded("wizard")]


def test_a_failing_listener_stops_no_other(heard):
    def broken(fact: object) -> None:
        raise ValueError("listener bug")

    announcements._subscribers[GamesRecorded].insert(0, broken)
    announce(recorded("wizard"))
    assert heard == [recorded("wizard")]


def test_silenced_drops_what_is_announced_inside_only(heard):
    with silenced():
        announce(recorded("wizard"))
    announce(recorded("nile"))
    assert heard == [recorded("nile")]


@pytest.fixture
def work(monkeypatch):
    monkeypatch.setattr(handoffs, "_hand_offs", [])
    monkeypatch.setattr(handoffs.settings, "ANNOUNCEMENTS_RAISE", False, raising=False)
    done: list[tuple[object, ...]] = []
    hand = handoffs.HandOff("test: note it")
    hand.done_by(lambda *args: done.append(args))
    return hand, done


def test_a_hand_off_waits_for_the_commit_and_a_rollback_drops_it(work):
    hand, done = work
    with transaction.atomic():
        handoffs.hand_off(hand, 1, ("wizard",))
        assert done == []
    assert done == [(1, ("wizard",))]
    with pytest.raises(RuntimeError), transaction.atomic():
        handoffs.hand_off(hand, 2, ())
        raise RuntimeError
    assert done == [(1, ("wizard",))]


def test_a_need_no_write_makes_true_is_handed_over_at_once(work):
    hand, done = work
    with transaction.atomic():
        handoffs.hand_off(hand, "wizard", at_once=True)
        assert done == [("wizard",)]


def test_a_failing_worker_is_logged_and_an_unbound_hand_off_refused(work, caplog):
    hand, _ = work
    broken = handoffs.HandOff("test: broken")
    broken.done_by(lambda: 1 / 0)
    handoffs.hand_off(broken)  # committed already (no transaction): logged, not raised
    assert "test: broken failed" in caplog.text
    with pytest.raises(RuntimeError, match="binds it"):
        handoffs.hand_off(handoffs.HandOff("test: nobody"))
    with pytest.raises(RuntimeError, match="done by"):
        hand.done_by(print)
    assert [declared.name for declared in handoffs.hand_offs()] == ["test: note it", "test: broken", "test: nobody"]
