"""Celery doors into moderation: detection after rating batches and on a schedule, and the rebuild after a void.

Both are queued by listeners of announcements (``on_ratings_changed``, ``on_games_voided``, subscribed in
``ModerationConfig.ready``), never by a service importing this module.

Detection reads its work from the database (the watermark), never from the message, so a lost, repeated or
concurrent run costs nothing: the beat schedule (``detect-abuse``) catches whatever a lost wake-up missed, and two
runs at once queue behind the watermark's row lock.
"""
from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from arena.announcements import GamesVoided, RatingsChanged
from arena.redis import redis_client
from moderation import detection
from moderation.services import penalties
from ratings.tasks import rate_elo

log = logging.getLogger(__name__)

# One queued detection covers every batch committed before it starts: no second message while one waits.
WAKE_KEY = "arena:wake:detect"
WAKE_TTL_SECONDS = 60


def on_ratings_changed(fact: RatingsChanged) -> None:
    """Subscribed to ratings' announcement: a rated batch brings new games to look at (resets and rebuilds don't)."""
    if fact.cause != "batch" or not fact.game_ids:
        return
    if settings.CELERY_TASK_ALWAYS_EAGER or redis_client().set(WAKE_KEY, 1, nx=True, ex=WAKE_TTL_SECONDS):
        detect.delay()


def on_games_voided(fact: GamesVoided) -> None:
    """Subscribed to the void's announcement (``penalties.void_games``, after its commit): one rebuild per title.

    The service announces rather than queues, so it imports no task module; whichever door voided the games,
    the rebuild follows."""
    for title in fact.titles:
        void_rebuild.delay(fact.action_id, title)


@shared_task(name="moderation.tasks.resume_void_rebuilds")
def resume_void_rebuilds() -> int:
    """Beat: queue again every void rebuild that has not landed (its message lost with a killed worker)."""
    unfinished = penalties.voids_unfinished()
    for entry_id, title in unfinished:
        log.warning("void %s: the rebuild of %s has not landed; queued again", entry_id, title)
        void_rebuild.delay(entry_id, title)
    return len(unfinished)


@shared_task(name="moderation.tasks.detect")
def detect() -> int:
    """One incremental detection pass over what is new; returns how many games it looked at (new or newly rated)."""
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        redis_client().delete(WAKE_KEY)
    result = detection.detect_all()
    if result.flags_created or result.flags_updated:
        log.info("detection: %d new games, %d newly rated, %d flags raised, %d updated", result.games, result.rated,
                 result.flags_created, result.flags_updated)
    return result.games + result.rated


@shared_task(name="moderation.tasks.void_rebuild")
def void_rebuild(entry_id: int, title: str) -> int:
    """Rebuild a title after a void, record the refunds on the audit entry, then rate what queued meanwhile."""
    refunds = penalties.void_rebuild_title(entry_id=entry_id, title=title)
    rate_elo.delay(title)
    return len(refunds)
