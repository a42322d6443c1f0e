"""The next round is paired by a worker, never in the recording request (docs/tournaments.md, "Rounds, results
and deadlines"): the round's last result records, closes the round and hands the pairing off after its commit;
the task pairs it exactly once, whoever asks again (a retry, a second worker, beat's sweep of a lost hand-off).
On both backends; the race of two workers on PostgreSQL's row lock."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.utils import timezone

from tests.db.tournaments.conftest import TOURNAMENTS, create, register, tokaido_game
from tournaments import tasks
from tournaments.models import Round, Table, Tournament
from tournaments.rounds import round_next_pair, rounds_unpaired
from tournaments.services import tournament_cancel

pytestmark = pytest.mark.both_backends


def _one_table_started(organiser, rounds: int = 2) -> tuple[int, dict]:
    tid = create(organiser, rounds=rounds)["id"]
    for handle in ("a", "b", "c", "d"):
        assert register(organiser, tid, handle).status_code == 201
    (table,) = organiser.post(f"{TOURNAMENTS}{tid}/start/").json()["rounds"][0]["tables"]
    return tid, table


def _record_without_the_hand_off(organiser, table: dict, capture) -> list:
    """Record the round's last game; what its commit would run is captured, not run (a lost hand-off)."""
    with capture(execute=False) as callbacks:
        body = tokaido_game(table, dict(zip(table["seats"], (90, 80, 70, 60), strict=True)))
        assert organiser.post("/api/v1/games/", body, format="json").status_code == 201
    return callbacks


@pytest.mark.django_db
def test_the_last_result_records_closes_and_only_hands_off_the_pairing(organiser, django_capture_on_commit_callbacks):
    tid, table = _one_table_started(organiser)
    callbacks = _record_without_the_hand_off(organiser, table, django_capture_on_commit_callbacks)
    # Answered: the game is the table's, the round closed, and no round 2 yet: the request paired nothing.
    tournament = Tournament.objects.get(pk=tid)
    assert tournament.round == 1 and Round.objects.filter(tournament=tournament).count() == 1
    assert Round.objects.get(tournament=tournament, number=1).closed_at is not None
    assert Table.objects.get(pk=table["id"]).game_id is not None
    for callback in callbacks:  # the commit's work, in-process as the embedded mode runs it
        callback()
    shown = organiser.get(f"{TOURNAMENTS}{tid}/").json()
    assert shown["round"] == 2 and [r["number"] for r in shown["rounds"]] == [1, 2]


@pytest.mark.django_db
def test_asked_again_it_pairs_nothing_more(organiser, django_capture_on_commit_callbacks):
    tid, table = _one_table_started(organiser, rounds=3)
    _record_without_the_hand_off(organiser, table, django_capture_on_commit_callbacks)  # the hand-off is lost
    assert round_next_pair(tournament_id=tid, after=1) == 2
    assert round_next_pair(tournament_id=tid, after=1) is None  # a retry
    assert tasks.pair_next.apply(args=(tid, 1)).get() is None  # the task, a second time
    assert rounds_unpaired() == []  # beat's sweep: round 2 is open, nothing to pair
    assert round_next_pair(tournament_id=tid, after=2) is None  # round 2 not closed yet
    assert list(Round.objects.filter(tournament_id=tid).values_list("number", flat=True).order_by("number")) == [1, 2]


@pytest.mark.django_db
def test_beat_pairs_a_closed_round_whose_hand_off_was_lost(organiser, django_capture_on_commit_callbacks):
    tid, table = _one_table_started(organiser)
    _record_without_the_hand_off(organiser, table, django_capture_on_commit_callbacks)
    assert Tournament.objects.get(pk=tid).round == 1
    assert tasks.due()["rounds_paired"] == [tid]
    assert Tournament.objects.get(pk=tid).round == 2
    assert tasks.due()["rounds_paired"] == []


@pytest.mark.django_db
def test_after_the_last_round_the_worker_finishes_it_and_a_cancelled_one_is_left(
    organiser, django_capture_on_commit_callbacks
):
    tid, table = _one_table_started(organiser, rounds=1)
    _record_without_the_hand_off(organiser, table, django_capture_on_commit_callbacks)
    assert Tournament.objects.get(pk=tid).status == Tournament.Status.RUNNING  # the request did not finish it
    assert round_next_pair(tournament_id=tid, after=1) is None
    assert Tournament.objects.get(pk=tid).status == Tournament.Status.FINISHED
    other, other_table = _one_table_started(organiser)
    _record_without_the_hand_off(organiser, other_table, django_capture_on_commit_callbacks)
    tournament_cancel(tournament_id=other, by="mod", reason="test")
    assert round_next_pair(tournament_id=other, after=1) is None and rounds_unpaired() == []
    assert Round.objects.filter(tournament_id=other).count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL's (SQLite has no FOR UPDATE)")
def test_two_workers_at_once_pair_the_round_once(organiser):
    tid, _ = _one_table_started(organiser, rounds=3)
    # Round 1 closed with its hand-off lost (every table a no-show): two workers are asked at the same moment.
    Table.objects.filter(round__tournament_id=tid).update(no_show=True)
    Round.objects.filter(tournament_id=tid).update(closed_at=timezone.now())
    gate = threading.Barrier(2)
    answers: list[int | None] = []

    def worker() -> None:
        try:
            gate.wait(10)
            answers.append(round_next_pair(tournament_id=tid, after=1))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(answers, key=lambda a: a is None) == [2, None]
    assert list(Round.objects.filter(tournament_id=tid).values_list("number", flat=True).order_by("number")) == [1, 2]
