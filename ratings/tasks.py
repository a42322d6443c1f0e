"""Thin Celery doors into the rating services.

Every task is safe to run twice or concurrently (Redis redelivers a late-acknowledged task, and every accepted
game queues one): the work to do is read from the database under the title's stage lock, never carried in the
message. A lost message costs nothing either: ``sweep_pending`` (Celery beat) finds whatever is still waiting.
"""

from __future__ import annotations

from collections.abc import Iterable

from celery import shared_task
from django.conf import settings

from arena.games import all_games
from infra import wakeups
from infra.task_log import task_facts
from ratings import economy, elo_batch, trueskill_batch
from ratings.lag import oldest_pending_age

# A title with a wake-up already queued needs no second message: the queued task rates every game committed
# before it starts. The marker expires in case a worker dies holding it; the sweep covers the gap meanwhile.
WAKE_KEY = "arena:wake:elo:{title}"
WAKE_TTL_SECONDS = 60


def request_rating(titles: Iterable[str]) -> None:
    """Wake the Elo stage of these titles, sending at most one message per title until a worker picks it up.

    Publishing through Celery costs more than recording a game; most games of a busy title arrive while a
    wake-up is already queued, and for them one Redis SET NX replaces the publish.
    """
    for title in sorted(set(titles)):
        if wakeups.wake_once(WAKE_KEY.format(title=title), ttl=WAKE_TTL_SECONDS):
            rate_elo.delay(title)


def _clear_wake(title: str) -> None:
    wakeups.wake_clear(WAKE_KEY.format(title=title))


@shared_task(name="ratings.tasks.rate_elo")
def rate_elo(title: str) -> int:
    """Rate every pending game of ``title``, batch after batch, then wake the TrueSkill stage.

    Each batch commits on its own and announces its players (``RatingsChanged``) right after. The loop ends on a
    batch that found nothing pending; that batch started after our previous commit, so nothing accepted
    before it is left behind.
    """
    # Cleared before the first batch looks: a game committed from now on sends a new wake-up, and one committed
    # before is seen by the loop below.
    _clear_wake(title)
    lag = oldest_pending_age(title=title)
    task_facts(title=title, batch_size=settings.RATING_BATCH_SIZE, lag_seconds=round(lag, 3))
    rated = batches = 0
    while True:
        batch = elo_batch.elo_stage_run(title=title)
        if not batch.games:
            break
        rated += batch.games
        batches += 1
    task_facts(games_rated=rated, batches=batches)
    if rated:
        rate_trueskill.delay(title)
    return rated


@shared_task(name="ratings.tasks.rate_trueskill")
def rate_trueskill(title: str) -> int:
    """Apply TrueSkill to every Elo-rated game of ``title`` not yet done, in rating order (its own queue)."""
    done = 0
    task_facts(title=title, batch_size=settings.RATING_BATCH_SIZE)
    while True:
        batch = trueskill_batch.trueskill_stage_run(title=title)
        if not batch.games:
            task_facts(games_rated=done)
            return done
        done += batch.games


@shared_task(name="ratings.tasks.sweep_pending")
def sweep_pending() -> None:
    """Periodic safety net: queue the stages of every title that still has work, whatever became of messages."""
    for title in elo_batch.titles_pending():
        rate_elo.delay(title)
    for title in trueskill_batch.titles_pending_trueskill():
        rate_trueskill.delay(title)


@shared_task(name="ratings.tasks.population_snapshot")
def population_snapshot() -> int:
    """Beat: each title's active population into today's economy row (``ratings.economy``); safe to run twice."""
    return economy.population_snapshot(titles=[game.title for game in all_games()])
