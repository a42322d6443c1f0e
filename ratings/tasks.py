"""Thin Celery doors into the rating services.

Every task is safe to run twice or concurrently (Redis redelivers a late-acknowledged task, and every accepted
game queues one): the work to do is read from the database under the title's stage lock, never carried in the
message. A lost message costs nothing either: ``sweep_pending`` (Celery beat) finds whatever is still waiting.
"""
from __future__ import annotations

from celery import shared_task

from ratings import services


@shared_task(name="ratings.tasks.rate_elo")
def rate_elo(title: str) -> int:
    """Rate every pending game of ``title``, batch after batch, then wake the TrueSkill stage.

    Each batch commits on its own, and the leaderboards hear of its players right after. The loop ends on a
    batch that found nothing pending; that batch started after our previous commit, so nothing accepted
    before it is left behind.
    """
    rated = 0
    while True:
        batch = services.rate_pending(title=title)
        if not batch.games:
            break
        rated += batch.games
        services.sync_boards(title=title, player_ids=batch.player_ids)
    if rated:
        rate_trueskill.delay(title)
    return rated


@shared_task(name="ratings.tasks.rate_trueskill")
def rate_trueskill(title: str) -> int:
    """Apply TrueSkill to every Elo-rated game of ``title`` not yet done, in rating order (its own queue)."""
    done = 0
    while True:
        batch = services.rate_trueskill_pending(title=title)
        if not batch.games:
            return done
        done += batch.games


@shared_task(name="ratings.tasks.sweep_pending")
def sweep_pending() -> None:
    """Periodic safety net: queue the stages of every title that still has work, whatever became of messages."""
    for title in services.pending_titles():
        rate_elo.delay(title)
    for title in services.trueskill_titles():
        rate_trueskill.delay(title)


@shared_task(name="ratings.tasks.rebuild_title")
def rebuild_title(title: str) -> int:
    """Rebuild a title's ratings in a worker (after a moderator voids games), then rate what queued meanwhile."""
    result = services.rebuild(title=title)
    rate_elo.delay(title)
    return result.games
