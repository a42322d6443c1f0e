"""Tournament tasks: thin doors over the services, each safe to repeat (the tournament's row lock decides)."""

from __future__ import annotations

from celery import shared_task

from tournaments import rounds, services, voids


@shared_task(name="tournaments.tasks.due")
def due() -> dict[str, list[int]]:
    """Beat, every minute: start the tournaments whose time has come, close the rounds past their deadline."""
    return {"started": services.tournaments_due(), "rounds_closed": rounds.rounds_overdue()}


@shared_task(name="tournaments.tasks.games_voided")
def games_voided(game_ids: list[int]) -> list[int]:
    """A void committed: re-score the tournaments whose tables it touched."""
    return voids.tournament_games_void(game_ids=game_ids)
