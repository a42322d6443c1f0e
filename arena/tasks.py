"""The core's one Celery door: beat's heartbeat (``infra.beat``)."""

from __future__ import annotations

from celery import shared_task

from infra import beat


@shared_task(name="arena.tasks.beat_tick", ignore_result=True)
def beat_tick() -> None:
    beat.beat_tick()
