"""Tournament tasks: thin doors over the services, each safe to repeat (the tournament's row lock decides)."""

from __future__ import annotations

from celery import shared_task

from infra.task_log import task_facts
from tournaments import rounds, services, voids


@shared_task(name="tournaments.tasks.due")
def due() -> dict[str, list[int]]:
    """Beat, every minute: start the tournaments whose time has come, close the rounds past their deadline, and
    pair the next round of any closed round whose pairing task was lost."""
    return {
        "started": services.tournaments_due(),
        "rounds_closed": rounds.rounds_overdue(),
        "rounds_paired": rounds.rounds_unpaired(),
    }


@rounds.next_round_pair.done_by
def pair_next_later(tournament_id: int, after: int) -> None:
    """The hand-off after a round's last result commits: one task (in-process when embedded)."""
    pair_next.delay(tournament_id, after)


@shared_task(name="tournaments.tasks.pair_next")
def pair_next(tournament_id: int, after: int) -> int | None:
    """Pair the round after ``after``; a repeat (a retry, a second worker, beat's sweep first) does nothing. The
    task's log line says which: ``paired`` is the round paired, 0 for nothing."""
    paired = rounds.round_next_pair(tournament_id=tournament_id, after=after)
    task_facts(tournament=tournament_id, after=after, paired=paired or 0)
    return paired


@shared_task(name="tournaments.tasks.games_voided")
def games_voided(game_ids: list[int]) -> list[int]:
    """A void committed: re-score the tournaments whose tables it touched."""
    return voids.tournament_games_void(game_ids=game_ids)
