"""A void whose rebuild never landed (its message lost with a SIGKILLed worker: tests/faults found it) is found
by the beat's sweep a minute later, and only then; a finished or fresh one is left alone."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from moderation.models import AuditEntry
from moderation.services.penalties import voids_unfinished

pytestmark = pytest.mark.django_db


def entry(pending: list[str], seconds_ago: float, action: str = "void_games") -> AuditEntry:
    made = AuditEntry.objects.create(action=action, details={"titles": pending, "pending_titles": pending})
    AuditEntry.objects.filter(pk=made.pk).update(created_at=timezone.now() - timedelta(seconds=seconds_ago))
    return made


def test_only_a_late_unfinished_void_is_resumed():
    late = entry(["spades", "tokaido"], 120)
    entry([], 120)                      # rebuilt
    entry(["wizard"], 30)               # still within its minute
    entry(["nile"], 120, action="ban")  # not a void
    assert voids_unfinished() == [(late.pk, "spades"), (late.pk, "tokaido")]
    assert voids_unfinished(now=timezone.now() - timedelta(seconds=61)) == []


def test_the_beat_runs_the_sweep_every_30_seconds():
    schedule = settings.CELERY_BEAT_SCHEDULE["resume-void-rebuilds"]
    assert (schedule["task"], schedule["schedule"]) == ("moderation.tasks.resume_void_rebuilds", 30.0)
