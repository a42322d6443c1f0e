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
import threading

from celery import shared_task
from django.conf import settings
from django.db import connections

from infra import mode, wakeups
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
    task_facts(
        games=result.games,
        games_rated=result.rated,
        flags_created=result.flags_created,
        flags_updated=result.flags_updated,
    )
    if result.flags_created or result.flags_updated:
        log.info(
            "detection: %d new games, %d newly rated, %d flags raised, %d updated",
            result.games,
            result.rated,
            result.flags_created,
            result.flags_updated,
        )
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


# A hair after the term, so the ban's end has passed when the timer's sweep reads it.
_BAN_TIMER_SLACK_SECONDS = 0.05
_ban_timers: set[threading.Timer] = set()
_ban_timers_lock = threading.Lock()


@penalties.ban_terms_due.done_by
def ban_term_timer(seconds: float) -> None:
    """A timed ban's end (``penalties.player_ban``'s hand-off). Scaled out the beat's ``lift-expired-bans`` lifts
    it; embedded there is no beat, so a timer in this web process runs the same sweep when the term ends, as the
    embedded pushes' retries do (issue 27 §4; docs/moderation.md, "Timed bans"). A process stopped before then
    loses the timer: the player's page says the term has passed, and the next timed ban's timer, or the sweep
    command, lifts it."""
    if not mode.tasks_in_process():
        return
    timer = threading.Timer(max(seconds, 0.0) + _BAN_TIMER_SLACK_SECONDS, _lift_due)
    timer.daemon = True
    timer.name = "arena-ban-term"
    with _ban_timers_lock:
        _ban_timers.add(timer)
    timer.start()


def _lift_due() -> None:
    try:
        penalties.bans_expired_lift()
    except Exception:  # a timer thread has nobody to raise to; the page still says the term is over
        log.exception("timed bans: the embedded timer's sweep failed")
    finally:
        with _ban_timers_lock:
            _ban_timers.discard(threading.current_thread())  # type: ignore[arg-type]
        connections.close_all()  # this thread's own connections


def ban_timers_cancel() -> int:
    """Cancels the embedded timers of timed bans (a test's end); returns how many. The terms stay in the
    database: the beat's sweep or the next timer lifts them."""
    with _ban_timers_lock:
        pending = list(_ban_timers)
        _ban_timers.clear()
    for timer in pending:
        timer.cancel()
    return len(pending)
