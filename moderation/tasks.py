"""Celery doors into moderation: detection after rating batches and on a schedule, and the rebuild after a void.

Detection is woken by ``listeners.py`` after a rating batch (``request_detection``); the rebuild is the void's
hand-off (``penalties.void_rebuilds``, bound here), so no service imports this module.

A void's rebuilds are recorded in the database too (the audit entry's ``pending_titles``): ``sweep_void_rebuilds``
(beat, every ``VOID_REBUILD_SWEEP_SECONDS``) queues again any still pending ``VOID_REBUILD_OVERDUE_SECONDS`` after
the void, so a message a killed worker had prefetched (which Redis hands back only after its visibility timeout,
an hour) delays a refund by about those two periods, never by the hour.

Detection reads its work from the database (the watermark), never from the message, so a lost, repeated or
concurrent run costs nothing: the beat schedule (``detect-abuse``) catches whatever a lost wake-up missed, and two
runs at once queue behind the watermark's row lock.
"""
from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from infra import wakeups
from infra.task_log import task_facts
from moderation import detection
from moderation.services import penalties
from ratings.tasks import rate_elo

log = logging.getLogger(__name__)

# One queued detection covers every batch committed before it starts: no second message while one waits.
WAKE_KEY = "arena:wake:detect"
WAKE_TTL_SECONDS = 60


def request_detection() -> None:
    """Wake one detection pass, unless one is queued already (it covers every batch committed before it starts)."""
    if wakeups.wake_once(WAKE_KEY, ttl=WAKE_TTL_SECONDS):
        detect.delay()


@penalties.void_rebuilds.done_by
def rebuild_voided(entry_id: int, titles: tuple[str, ...]) -> None:
    """The void's hand-off (``penalties.games_void``, after its commit): one rebuild per title, whichever door
    voided the games."""
    for title in titles:
        void_rebuild.delay(entry_id, title)


@shared_task(name="moderation.tasks.detect")
def detect() -> int:
    """One incremental detection pass over what is new; returns how many games it looked at (new or newly rated)."""
    wakeups.wake_clear(WAKE_KEY)
    result = detection.detection_run_all()
    task_facts(games=result.games, games_rated=result.rated, flags_created=result.flags_created,
               flags_updated=result.flags_updated)
    if result.flags_created or result.flags_updated:
        log.info("detection: %d new games, %d newly rated, %d flags raised, %d updated", result.games, result.rated,
                 result.flags_created, result.flags_updated)
    return result.games + result.rated


@shared_task(name="moderation.tasks.void_rebuild")
def void_rebuild(entry_id: int, title: str) -> int:
    """Rebuild a title after a void, record the refunds on the audit entry, then rate what queued meanwhile."""
    refunds = penalties.void_rebuild_run(entry_id=entry_id, title=title)
    rate_elo.delay(title)
    return len(refunds)


# A re-queued rebuild is queued again at most once per this marker's life (the overdue period), however many sweeps
# pass while a long rebuild runs: the copies would only wait on the title's lock to find nothing left to do.
SWEEP_KEY = "arena:sweep:void:{entry}:{title}"


@shared_task(name="moderation.tasks.sweep_void_rebuilds")
def sweep_void_rebuilds() -> int:
    """Beat's safety net: queue again every void rebuild still pending past the overdue period; returns how many."""
    overdue = settings.VOID_REBUILD_OVERDUE_SECONDS
    queued = 0
    for entry_id, title in penalties.void_rebuilds_overdue(older_than=overdue):
        marker = SWEEP_KEY.format(entry=entry_id, title=title)
        if wakeups.wake_once(marker, ttl=overdue):
            log.warning("void %d: the rebuild of %s is overdue, queued again", entry_id, title)
            void_rebuild.delay(entry_id, title)
            queued += 1
    return queued


@shared_task(name="moderation.tasks.lift_expired_bans")
def lift_expired_bans() -> int:
    """The beat's sweep of timed bans (``penalties.bans_expired_lift``): reads its work from the database, so a
    lost or repeated run costs nothing. Returns how many bans it lifted."""
    lifted = penalties.bans_expired_lift()
    if lifted:
        log.info("timed bans: %d lifted", len(lifted))
    return len(lifted)
