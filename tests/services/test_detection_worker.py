"""Abuse detection in a real ``celery worker`` after rating batches, on PostgreSQL and Redis.

``simulate`` posts a population through the API in this process (committed); the worker rates it, each rated
batch announces ``RatingsChanged`` in the worker, moderation's subscriber queues ``detect`` there, and the flags
that come out are compared with the truth that was planted. Nothing calls detection from the test.
"""

from __future__ import annotations

import io
import json
import time

import pytest
from django.core.management import call_command
from django.db.models import Max

from arena.models import Game
from config.celery import app
from moderation.models import DetectionState, Flag
from tests.services.test_rating_worker import Worker, wait_until_done, worker  # noqa: F401 - the fixture
from tests.services.workers import worker_conf

pytestmark = pytest.mark.django_db(transaction=True)


def _caught_up() -> bool:
    """Detection has looked at every game (the id watermark) and at every rated game (each title's cursor)."""
    state = DetectionState.objects.filter(name="default").first()
    if state is None or state.last_game_id < (Game.objects.aggregate(m=Max("pk"))["m"] or 0):
        return False
    rated = Game.objects.filter(status=Game.Status.RATED).values("title").annotate(m=Max("rating_seq"))
    return all(state.rated_seqs.get(row["title"], 0) >= row["m"] for row in rated)


def test_worker_detects_rings_after_rating_batches(worker: Worker):  # noqa: F811 - the fixture
    out = io.StringIO()
    call_command(
        "simulate",
        seed=21,
        players=50,
        households=4,
        rings=4,
        games=600,
        batch=100,
        no_progress=True,
        stdout=out,
        stderr=io.StringIO(),
    )
    truth = json.loads(out.getvalue())
    wait_until_done(worker)
    deadline = time.monotonic() + 60
    while not _caught_up() and time.monotonic() < deadline:
        time.sleep(0.25)
    assert _caught_up(), "detection did not catch up with the rated games"
    flagged = set(Flag.objects.filter(status=Flag.Status.OPEN).values_list("beneficiary__handle", "title"))
    planted = {tuple(p) for p in truth["planted"]}
    assert len(planted) >= 4, "the simulation planted no rings: the shares below would pass on empty sets"
    assert len(flagged & planted) >= 0.9 * len(planted)
    assert len(flagged & planted) >= 0.9 * len(flagged)
    log = (worker.logs / f"worker-{worker.starts}.log").read_text(errors="replace")
    assert "moderation.tasks.detect" in log


def test_detection_is_registered_and_scheduled_in_the_worker(worker: Worker):  # noqa: F811 - the fixture
    conf = worker_conf()
    assert conf["beat_schedule"]["detect-abuse"]["task"] == "moderation.tasks.detect"
    registered = app.control.inspect(timeout=2).registered() or {}
    assert {"moderation.tasks.detect", "moderation.tasks.void_rebuild"} <= set(next(iter(registered.values()), []))
