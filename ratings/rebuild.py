"""The rebuild: recompute a title's ratings and history from its rated games and the resets, in seq order.

The replay applies the same rules (``ratings.plan``) to the same games and resets in the same order as the
stages did (ratings.stages), so on an untouched database it reproduces every rating and history row bit for
bit; ``check`` proves it without writing. After voided games it is how victims get their points back.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from django.db import transaction
from django.utils import timezone

from arena.models import Game
from infra.gc_pause import gc_paused
from ratings import economy, ledger
from ratings.config import elo_config
from ratings.models import Rating, RatingChange, RatingStage
from ratings.plan import KIND_GAME, KIND_RESET, ChangeRow, EloPlan, RatedGame, SkillPlan
from ratings.stages import deck_key, hanabi_rules, ratings_announce, stage_lock
from ratings.store import store
from ratings.store.tables import CHANGE_COLUMNS
from ratings.trueskill_batch import trueskill_rated

# Games read per round trip while rebuilding, so a title of millions of games never sits in memory as seats.
REBUILD_CHUNK = 5000
# Rebuild progress is reported every this many games and resets.
PROGRESS_EVERY = 1000
# Elo differences below this are float noise of the replay, not a change a rebuild made.
REPLAY_NOISE = 1e-9


@dataclass
class Mismatch:
    """A difference found by ``title_replay(check=True)``: what is stored and what the replay computes."""

    what: str
    key: object
    stored: object
    computed: object


@dataclass
class RebuildResult:
    title: str
    games: int = 0
    resets: int = 0
    players: int = 0
    trueskill_games: int = 0
    checked: bool = False
    mismatches: list[Mismatch] = field(default_factory=list)
    # player id -> the sum of their changes in the games voided since the last rebuild (what is refunded).
    voided: dict[int, float] = field(default_factory=dict)


@dataclass(frozen=True)
class EloMove:
    """A player's Elo in a title before and after a rebuild; ``None`` where they had no rating (R0 counts then)."""

    before: float | None
    after: float | None
    delta: float
    # The move by ledger source (docs/ratings.md, "Where rating points come from"): void_refund and rebuild.
    sources: dict[str, float] = field(default_factory=dict)


def titles_rated() -> list[str]:
    """Every title with a rating or a rated game: what ``rebuild_ratings`` covers by default."""
    titles = set(Rating.objects.values_list("title", flat=True).distinct())
    titles.update(Game.objects.filter(status=Game.Status.RATED).values_list("title", flat=True).distinct())
    return sorted(titles)


def _replay_games(title: str, trueskill_seq: int) -> Iterator[tuple[int, RatedGame, bool]]:
    """(seq, game, whether the TrueSkill stage has applied it: up to its ``trueskill_seq``) of every rated game in
    seq order, read in chunks."""
    db = store()
    deck = deck_key(title)
    after = None
    while True:
        games, seqs = db.rated_games(title=title, after_seq=after, limit=REBUILD_CHUNK, deck_key=deck)
        if not games:
            return
        for seq, game in zip(seqs, games, strict=True):
            yield seq, game, seq <= trueskill_seq
        after = seqs[-1]


def title_replay(
    *, title: str, progress: Callable[[int, int], None] | None = None, check: bool = False
) -> RebuildResult:
    """Recompute ``title``'s ratings and history from its rated games and the resets, in seq order.

    Under both stage locks, so no batch or reset interleaves. Voided games are skipped (that is how a void gives
    victims their points back). Hanabi games replay against the bot rating they met (kept in the history), so
    a later edit of the Hanabot table does not rewrite them. TrueSkill is replayed too, over the games its
    stage had already applied (always a prefix of the seq order); the rest stay for the stage.

    ``check``: compute and compare with what is stored, write nothing; the result lists the mismatches.
    """
    result = RebuildResult(title=title, checked=check)
    trueskill = trueskill_rated(title)
    with transaction.atomic():
        stage_lock(title, RatingStage.Stage.ELO)
        trueskill_seq = stage_lock(title, RatingStage.Stage.TRUESKILL).last_seq
        history = RatingChange.objects.filter(title=title)
        resets = list(
            history.filter(kind=KIND_RESET).order_by("seq", "player_id").values_list("seq", "player_id", "finished_at")
        )
        opponents = dict(
            history.filter(kind=KIND_GAME, opponent__isnull=False).values_list("game_id", "opponent").distinct()
        )
        total = Game.objects.filter(title=title, status=Game.Status.RATED).count() + len(resets)
        plan = EloPlan(states={}, config=elo_config(), hanabi_rules=hanabi_rules(title))
        skills = SkillPlan(states={})
        # One per-title sequence numbers games and resets alike: merging by it restores the order of application.
        events = heapq.merge(_replay_games(title, trueskill_seq), resets, key=itemgetter(0))
        done = 0
        with gc_paused() if not trueskill else nullcontext():
            for seq, what, extra in events:
                if isinstance(what, RatedGame):
                    plan.apply_game(what, seq, opponent=opponents.get(what.id))
                    result.games += 1
                    if trueskill and extra:
                        skills.apply_game(what)
                        result.trueskill_games += 1
                else:
                    plan.apply_reset(what, seq, extra)
                    result.resets += 1
                done += 1
                if progress is not None and done % PROGRESS_EVERY == 0:
                    progress(done, total)
        if progress is not None:
            progress(done, total)
        result.players = len(plan.states)
        if check:
            result.mismatches = _compare(title, plan, skills)
            return result
        before = dict(Rating.objects.filter(title=title).values_list("player_id", "elo"))
        result.voided = _ledger(title, plan, before)
        _write(title, plan, skills)
        moved = before.keys() | plan.states.keys()
        ratings_announce(title=title, player_ids=moved, cause="rebuild")
    return result


def title_rebuild(*, title: str) -> dict[int, EloMove]:
    """Rebuild ``title`` and say whose Elo it moved, by player id in id order: what a void refunds.

    The title's Elo lock is taken before the first reading and kept (to the caller's commit, inside a caller's
    transaction) past the last, so no batch slips between the two and the moves are exactly the rebuild's.
    """
    initial = elo_config().initial
    with transaction.atomic():
        stage_lock(title, RatingStage.Stage.ELO)
        before = dict(Rating.objects.filter(title=title).values_list("player_id", "elo"))
        voided = title_replay(title=title).voided
        after = dict(Rating.objects.filter(title=title).values_list("player_id", "elo"))
    moves = {}
    for player_id in sorted(before.keys() | after.keys()):
        delta = after.get(player_id, initial) - before.get(player_id, initial)
        if abs(delta) > REPLAY_NOISE:
            moves[player_id] = EloMove(
                before.get(player_id),
                after.get(player_id),
                delta,
                ledger.void_parts(refunded=-voided.get(player_id, 0.0), moved=delta),
            )
    return moves


def _ledger(title: str, plan: EloPlan, before: dict[int, float]) -> dict[int, float]:
    """The rebuild's moves into the ledger (docs/ratings.md, "Where rating points come from"): the history rows
    of games no longer rated (voided since the last rebuild, which removes their rows) are what is refunded."""
    voided: dict[int, float] = {}
    for player_id, delta in (
        RatingChange.objects.filter(title=title, kind=KIND_GAME)
        .exclude(game__status=Game.Status.RATED)
        .values_list("player_id", "delta")
    ):
        voided[player_id] = voided.get(player_id, 0.0) + delta
    after = {player_id: state.elo for player_id, state in plan.states.items()}
    economy.ledger_rebuild(title=title, before=before, after=after, void_deltas=voided, initial=plan.config.initial)
    return voided


def _rebuilt_ratings(plan: EloPlan, skills: SkillPlan) -> dict[int, tuple[Any, ...]]:
    """player_id -> (elo, games, last_game_at, ts_mu, ts_sigma) as the replay leaves them."""
    out: dict[int, tuple[Any, ...]] = {}
    for player_id, state in plan.states.items():
        skill = skills.states.get(player_id)
        out[player_id] = (
            state.elo,
            state.games,
            state.last_game_at,
            skill.skill.mu if skill else None,
            skill.skill.sigma if skill else None,
        )
    return out


def _write(title: str, plan: EloPlan, skills: SkillPlan) -> None:
    RatingChange.objects.filter(title=title).delete()
    Rating.objects.filter(title=title).delete()
    rows = [(player_id, *values) for player_id, values in sorted(_rebuilt_ratings(plan, skills).items())]
    db = store()
    db.insert_ratings(title=title, rows=rows)
    db.insert_changes(title=title, rows=plan.changes, created_at=timezone.now())


def _compare(title: str, plan: EloPlan, skills: SkillPlan) -> list[Mismatch]:
    """Bit-for-bit comparison of the replay with the stored ratings and history."""
    mismatches: list[Mismatch] = []
    computed = _rebuilt_ratings(plan, skills)
    stored = {
        player_id: tuple(values)
        for player_id, *values in Rating.objects.filter(title=title).values_list(
            "player_id", "elo", "games", "last_game_at", "ts_mu", "ts_sigma"
        )
    }
    for player_id in sorted(computed.keys() | stored.keys()):
        if computed.get(player_id) != stored.get(player_id):
            mismatches.append(Mismatch("rating", player_id, stored.get(player_id), computed.get(player_id)))
    fields = CHANGE_COLUMNS[: len(ChangeRow._fields)]  # a history row's columns in ChangeRow order
    stored_changes = {(row[0], row[1]): row for row in RatingChange.objects.filter(title=title).values_list(*fields)}
    computed_changes = {(row.seq, row.player_id): tuple(row) for row in plan.changes}
    for key in sorted(computed_changes.keys() | stored_changes.keys()):
        if computed_changes.get(key) != stored_changes.get(key):
            mismatches.append(Mismatch("history", key, stored_changes.get(key), computed_changes.get(key)))
    return mismatches
