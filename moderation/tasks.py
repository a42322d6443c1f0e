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
import time

from celery import shared_task
from django.conf import settings
from django.db import connections
from django.utils import timezone

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


class _BanTimer:
    """The embedded web process's one timer for timed bans: always set for the soonest term end it knows of.

    One thread however many bans are timed. When it fires it runs the beat's sweep (``bans_expired_lift``: lifted
    once, audited as the system, safe beside another process's sweep), then reads the next term still in force from
    the database and sets itself for it. So a restarted process finds its terms again (``ban_terms_resume``), and a
    ban made by another process sharing the database is ended too. ``generation`` changes on ``cancel``: a timer
    firing meanwhile does not set itself again (a test's end)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None
        self.due = 0.0  # time.monotonic() when ``timer`` fires
        self.generation = 0

    def arm(self, seconds: float, generation: int | None = None) -> None:
        due = time.monotonic() + max(seconds, 0.0) + _BAN_TIMER_SLACK_SECONDS
        with self.lock:
            if generation is not None and generation != self.generation:
                return
            if self.timer is not None and self.due <= due:
                return  # set for an earlier end already: its sweep lifts this one too, or sets itself for it
            if self.timer is not None:
                self.timer.cancel()
            self.timer = threading.Timer(max(due - time.monotonic(), 0.0), self.fire, args=(self.generation,))
            self.timer.daemon = True
            self.timer.name = "arena-ban-term"
            self.due = due
            self.timer.start()

    def fire(self, generation: int) -> None:
        with self.lock:
            if self.timer is threading.current_thread():
                self.timer = None  # a ban made during the sweep below sets a new timer, never waits for this one
        try:
            penalties.bans_expired_lift()
            following = penalties.ban_term_next_end()
            if following is not None:
                self.arm((following - timezone.now()).total_seconds(), generation)
        except Exception:  # a timer thread has nobody to raise to; the page still says the term is over
            log.exception("timed bans: the embedded timer's sweep failed")
        finally:
            connections.close_all()  # this thread's own connections

    def cancel(self) -> int:
        with self.lock:
            self.generation += 1
            timer, self.timer = self.timer, None
        if timer is None:
            return 0
        timer.cancel()
        return 1


_ban_timer = _BanTimer()


@penalties.ban_terms_due.done_by
def ban_term_timer(seconds: float) -> None:
    """A timed ban's end (``penalties.player_ban``'s hand-off). Scaled out the beat's ``lift-expired-bans`` lifts
    it; embedded there is no beat, so this web process's timer runs the same sweep when the term ends, as the
    embedded pushes' retries do (issue 27 §4; docs/moderation.md, "Timed bans")."""
    if mode.tasks_in_process():
        _ban_timer.arm(seconds)


def ban_terms_resume() -> None:
    """An embedded web process starting (``config/wsgi.py``): the timers of the process that stopped are gone, so
    the timer is set at once; its sweep lifts every ban whose term passed meanwhile (audited as the beat's are) and
    sets it for the soonest term still in force. Idempotent: a second call, or a second web process, finds nothing
    more to lift. The database is read in the timer's thread, never while the process is still starting."""
    if mode.tasks_in_process():
        _ban_timer.arm(0.0)


def ban_timers_cancel() -> int:
    """Cancels the embedded timer of timed bans (a test's end); returns how many were set. The terms stay in the
    database: the beat's sweep or the next start lifts them."""
    return _ban_timer.cancel()
