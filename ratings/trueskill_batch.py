"""The TrueSkill stage: matchmaking's estimate, applied behind the Elo stage in its order (ratings.stages)."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from ratings import lag
from ratings.models import RatingStage
from ratings.plan import SkillPlan
from ratings.stages import BatchResult, cooperative, stage_advance, stage_lock
from ratings.store import store


def trueskill_rated(title: str) -> bool:
    """TrueSkill is for matchmaking of competitive games: a cooperative game has no places to rate (docs/ratings.md)."""
    return not cooperative(title)


def trueskill_stage_run(*, title: str, limit: int | None = None) -> BatchResult:
    """Apply TrueSkill to up to ``limit`` Elo-rated games of ``title`` in ``rating_seq`` order, exactly once.

    Its own lock row, so it lags behind the Elo stage without ever holding it back; the Rating rows it needs
    already exist (the Elo stage created them) and it touches only their ts_* columns. How far it got is that
    row's ``last_seq``, advanced in the batch's transaction: the next games are the rated ones after it (an Elo
    batch commits all its seqs at once, and the next one only after it, so the games after it are never
    overtaken by a game committed later with a smaller seq). A killed batch rolls back the ratings and the
    advance together; a voided game is no longer rated and is skipped.
    """
    # The same batch size as Elo: its reads and writes per game shrink as a batch's players repeat, and a
    # TrueSkill batch (a few seconds) holds only its own lock, the rows' locks just for its final writes.
    limit = limit or settings.RATING_BATCH_SIZE
    db = store()
    with transaction.atomic():
        stage = stage_lock(title, RatingStage.Stage.TRUESKILL)
        if not trueskill_rated(title):
            # Nothing to rate: the stage catches up with the Elo stage at once, so its lag reads zero.
            elo_seq = RatingStage.objects.filter(title=title, stage=RatingStage.Stage.ELO).values_list(
                "last_seq", flat=True
            )
            caught_up = max(elo_seq.first() or 0, stage.last_seq)
            if caught_up != stage.last_seq:
                stage_advance(stage, caught_up)
            return BatchResult(title=title, games=0)
        games, seqs = db.rated_games(title=title, after_seq=stage.last_seq, limit=limit, deck_key=None)
        if not games:
            return BatchResult(title=title, games=0)
        states = db.skill_states(title=title, player_ids={seat[0] for game in games for seat in game.seats})
        plan = SkillPlan(states=states)
        for game in games:
            plan.apply_game(game)
        updates: list[tuple[int, float, float]] = []
        for p in plan.touched:
            rating_id = states[p].rating_id
            if rating_id is None:
                raise RuntimeError(f"{title}: a rated game's player has no Rating row")
            updates.append((rating_id, states[p].skill.mu, states[p].skill.sigma))
        updates.sort()
        db.lock_ratings(ids=[u[0] for u in updates])
        db.update_skill(rows=updates)
        stage_advance(stage, seqs[-1])
    return BatchResult(
        title=title, games=len(games), player_ids=sorted(plan.touched), first_seq=seqs[0], last_seq=seqs[-1]
    )


def titles_pending_trueskill() -> list[str]:
    """Titles with Elo-rated games the TrueSkill stage has not applied yet."""
    return [row.title for row in lag.trueskill_lag()]
