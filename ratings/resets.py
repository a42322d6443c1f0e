"""A moderator's reset of a player's Elo: a history row in the title's order, so a rebuild replays it in place."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from arena.models import Player
from ratings import economy
from ratings.config import elo_config
from ratings.models import Rating, RatingStage
from ratings.plan import EloPlan, PlayerState
from ratings.stages import ratings_announce, stage_advance, stage_lock
from ratings.store import store


@dataclass(frozen=True)
class ResetResult:
    title: str
    player_id: int
    seq: int
    before: float


def rating_reset(
    *, player: Player, titles: Iterable[str] | None = None, at: datetime | None = None
) -> list[ResetResult]:
    """Reset ``player``'s Elo to the initial rating in every title they have a rating in (or only ``titles``).

    Written as a ``reset`` history row taking the title's next seq under the title's Elo lock, so it falls
    between two batches and a rebuild replays it at the same point. Games played are kept (docs/moderation.md), so
    K does not start over; TrueSkill is matchmaking's estimate and is left as it is. Titles are locked in name
    order.
    """
    at = at or timezone.now()
    results: list[ResetResult] = []
    with transaction.atomic():
        wanted = Rating.objects.filter(player=player)
        if titles is not None:
            wanted = wanted.filter(title__in=list(titles))
        for title in sorted(set(wanted.values_list("title", flat=True))):
            stage = stage_lock(title, RatingStage.Stage.ELO)
            rating = Rating.objects.select_for_update().get(player=player, title=title)
            seq = stage.last_seq + 1
            plan = EloPlan(
                states={player.pk: PlayerState(rating.pk, rating.elo, rating.games)},
                config=elo_config(),
                hanabi_rules=None,
            )
            plan.apply_reset(player.pk, seq, at)
            store().insert_changes(title=title, rows=plan.changes, created_at=timezone.now())
            economy.ledger_reset(title=title, changes=plan.changes)
            Rating.objects.filter(pk=rating.pk).update(elo=plan.states[player.pk].elo)
            stage_advance(stage, seq)
            results.append(ResetResult(title=title, player_id=player.pk, seq=seq, before=rating.elo))
        for result in results:
            ratings_announce(title=result.title, player_ids=[result.player_id], cause="reset")
    return results
