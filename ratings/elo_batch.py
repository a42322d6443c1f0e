"""The Elo stage: rate a title's pending games in arrival order, a batch per transaction (order: ratings.stages)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.models import Game
from infra.gc_pause import gc_paused
from ratings import economy, metrics, reputation
from ratings.config import elo_config
from ratings.models import RatingStage
from ratings.plan import EloPlan, RatedGame
from ratings.stages import BatchResult, deck_key, hanabi_rules, ratings_announce, stage_advance, stage_lock
from ratings.store import CooldownUpdate, EloUpdate, NewRating, store


def elo_stage_run(*, title: str, limit: int | None = None) -> BatchResult:
    """Rate up to ``limit`` pending games of ``title`` in arrival order, in one transaction.

    Reads: the stage lock, the games, their seats, the ratings they need (locked, id order), the Hanabot table
    for a cooperative title. Writes: new and updated ratings, history, game statuses and the seq, each one bulk
    statement. Calling it again (a redelivered task) finds nothing pending and changes nothing.
    """
    limit = limit or settings.RATING_BATCH_SIZE
    db = store()
    started = time.perf_counter()
    # The collector paused for the whole batch, not just the plan: the read, the plan, the writes' columns and the
    # reputation fold allocate tens of thousands of objects that live until the batch ends, and collections over
    # them found nothing (5 to 7 % of the batch's CPU; docs/testing.md, "The Elo stage and TrueSkill, 2026-12-03
    # night").
    with gc_paused(), transaction.atomic():
        stage = stage_lock(title, RatingStage.Stage.ELO)
        games = db.pending_games(title=title, limit=limit, deck_key=deck_key(title))
        if not games:
            return BatchResult(title=title, games=0)
        states = db.elo_states(title=title, player_ids={seat[0] for game in games for seat in game.seats})
        plan = EloPlan(states=states, config=elo_config(), hanabi_rules=hanabi_rules(title))
        first = stage.last_seq + 1
        seq = stage.last_seq
        for game in games:
            seq += 1
            plan.apply_game(game, seq)
        _write(title=title, plan=plan, game_seqs=[(game.id, first + i) for i, game in enumerate(games)])
        ledger_record(title=title, games=games, plan=plan)
        reputations_fold(games)
        stage_advance(stage, seq)
        ratings_announce(title=title, player_ids=plan.touched, cause="batch", game_ids=[game.id for game in games])
    # Only batches that rated something: the empty look that ends every run would drown the figures.
    metrics.BATCH_SECONDS.observe(time.perf_counter() - started)
    metrics.BATCH_GAMES.observe(len(games))
    return BatchResult(title=title, games=len(games), player_ids=sorted(plan.touched), first_seq=first, last_seq=seq)


def _write(*, title: str, plan: EloPlan, game_seqs: list[tuple[int, int]]) -> None:
    states = plan.states
    new: list[NewRating] = []
    updated: list[EloUpdate] = []
    for player_id in plan.touched:
        state = states[player_id]
        if state.rating_id is None:
            new.append((player_id, state.elo, state.games, state.last_game_at, None, None))
        else:
            updated.append((state.rating_id, state.elo, state.games, state.last_game_at))
    db = store()
    db.insert_ratings(title=title, rows=new)
    db.update_elo(rows=updated)
    db.insert_changes(title=title, rows=plan.changes, created_at=timezone.now())
    db.mark_games_rated(rows=game_seqs)


def ledger_record(*, title: str, games: Sequence[RatedGame], plan: EloPlan) -> None:
    """The batch's points by source into today's ledger (docs/ratings.md, "Where rating points come from"), in
    the batch's transaction: a separate call, so the bench can time the stage without it."""
    economy.ledger_batch(title=title, games=games, plan=plan)


def reputations_fold(games: Sequence[RatedGame]) -> None:
    """Every player's outcomes of the batch appended to their reputation, and the quitters' cool-downs decided
    (docs/matchmaking.md): one statement for everyone, a read of the quitters' rows when someone quit and a write
    when that started or renewed a cool-down; no query per game. Inside the batch's transaction, so a rolled-back
    batch leaves reputation untouched too."""
    added: dict[int, str] = {}
    quitters: dict[int, list[tuple[bool, datetime]]] = {}
    get = added.get
    finished, quit_mark = reputation.FINISHED, reputation.QUIT
    for game in games:
        for player_id, _, _, quit_ in game.seats:
            # Strings, not lists: most players meet once or twice in a batch, and a short concatenation is cheap.
            added[player_id] = get(player_id, "") + (quit_mark if quit_ else finished)
            if quit_:
                quitters[player_id] = []
    if quitters:
        for game in games:
            for player_id, _, _, quit_ in game.seats:
                if player_id in quitters:
                    quitters[player_id].append((quit_, game.finished_at))
    db = store()
    # Unsorted: the statement takes the rows in player order itself (the lock order every batch keeps).
    rows = db.append_outcomes(rows=list(added.items()), returning=quitters)
    updates: list[CooldownUpdate] = []
    for player_id, outcomes in quitters.items():
        recent, until, seconds, started, last_quit = rows[player_id]
        before = recent[: max(0, len(recent) - len(outcomes))]
        state = reputation.Cooldown(until, timedelta(seconds=seconds), started, last_quit)
        _, after = reputation.fold(before, state, outcomes)
        if after != state:
            updates.append(
                (player_id, after.until, int(after.length.total_seconds()), after.started_at, after.last_quit_at)
            )
    db.update_cooldowns(rows=updates)


def titles_pending() -> list[str]:
    """Titles with games waiting for the Elo stage (uses the pending partial index)."""
    return sorted(set(Game.objects.filter(status=Game.Status.PENDING).values_list("title", flat=True).distinct()))
