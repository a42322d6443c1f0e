"""The rating stages: rate pending games in batches, TrueSkill behind them, moderator resets and the rebuild.

Order and exactly-once come from the database, never from the task queue (style.md):

- One row per (title, stage) in ``RatingStage`` is locked FOR UPDATE for the whole of a batch, so within a title
  one batch runs at a time while different titles run in parallel. A batch selects ``pending`` games under that
  lock and marks them ``rated`` in the same transaction: a redelivered or concurrent task finds nothing left to
  do, and a worker killed mid-batch leaves nothing behind (the transaction rolls back, the lock is released).
  The unique constraint on (game, player) history rows is the backstop.
- ``RatingStage(title, elo).last_seq`` is the title's one sequence: every applied game and every reset takes the
  next number (``Game.rating_seq``, ``RatingChange.seq``). The rebuild replays games and resets merged by that
  number, so it applies the same operations in the same order and reproduces every rating bit for bit.
- Games are taken in id order, which is the order Arena accepted (committed) them; two games committed by
  concurrent requests have no order between them, and one whose transaction commits after a later id was rated
  simply takes the next seq. ``rating_seq`` is the authoritative order.
- TrueSkill is a second ordered stage with its own lock row: it takes rated games with ``trueskill_done`` false
  in ``rating_seq`` order and sets the flag in the same transaction. It only ever writes the ts_* columns, so the
  two stages never undo each other; their Rating row locks are taken in id order, so they never deadlock.

A game whose player was banned after it was recorded but before it was rated is rated as recorded: the ban
applies to games recorded after it (moderation.md: "its new games ... rated for nobody"), and a moderator who
wants such a game gone voids it and rebuilds.
"""
from __future__ import annotations

import gc
import heapq
import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from operator import itemgetter

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.announcements import RatingsChanged, announce
from arena.games import get_game
from arena.models import Game, Player
from ratings import readers, writers
from ratings.elo import EloConfig
from ratings.models import HanabotRating, Rating, RatingChange, RatingStage
from ratings.plan import (
    KIND_GAME,
    KIND_RESET,
    EloPlan,
    GameRow,
    HanabiRules,
    PlayerState,
    SkillPlan,
)

log = logging.getLogger(__name__)

HANABI = "hanabi"
# Games read per round trip while rebuilding, so a title of millions of games never sits in memory as seats.
REBUILD_CHUNK = 5000
# Rebuild progress is reported every this many games and resets.
PROGRESS_EVERY = 1000


@dataclass(frozen=True)
class BatchResult:
    """What one batch did: the games it applied and the players whose Rating row changed."""

    title: str
    games: int
    player_ids: list[int] = field(default_factory=list)
    first_seq: int | None = None
    last_seq: int | None = None


@dataclass(frozen=True)
class ResetResult:
    title: str
    player_id: int
    seq: int
    before: float


@dataclass
class Mismatch:
    """A difference found by ``rebuild(check=True)``: what is stored and what the replay computes."""

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


# ---------------------------------------------------------------------------------------------------------------
# Shared pieces
# ---------------------------------------------------------------------------------------------------------------

def elo_config() -> EloConfig:
    """The rules' constants from the settings (ratings.md: every constant is a setting)."""
    return EloConfig(
        initial=settings.ELO_INITIAL, k_new=settings.ELO_K_NEW, k_mid=settings.ELO_K_MID,
        k_settled=settings.ELO_K_SETTLED, mid_from=settings.ELO_MID_FROM, settled_from=settings.ELO_SETTLED_FROM,
        quit_penalty=settings.ELO_QUIT_PENALTY, floor=settings.ELO_FLOOR,
    )


def _hanabi_rules(title: str) -> HanabiRules | None:
    """The Hanabot table as it is now: read once per batch, so an admin's edit applies to games rated after it."""
    if title != HANABI:
        return None
    table = {(cls, size, score): elo
             for cls, size, score, elo in HanabotRating.objects.values_list("variant_class", "team_size", "score",
                                                                          "elo")}
    return HanabiRules(table=table, below_rule=settings.HANABOT_BELOW_THRESHOLD)


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a plan runs.

    A batch allocates a few objects per seat and frees none until it ends, which makes CPython run collections
    over the growing heap again and again (measured: a tenth to a third of the Elo computation). The Elo plan
    creates no reference cycles, so nothing is left for the collector to find afterwards. (Not for TrueSkill:
    trueskill's factor graphs are cycles, and it gains nothing.)
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _lock_stage(title: str, stage: str) -> RatingStage:
    """Lock the (title, stage) row for this transaction, creating it on first use (safe when two race)."""
    rows = RatingStage.objects.select_for_update().filter(title=title, stage=stage)
    row = rows.first()
    if row is None:
        RatingStage.objects.bulk_create([RatingStage(title=title, stage=stage)], ignore_conflicts=True)
        row = rows.get()
    return row


def announce_ratings(*, title: str, player_ids: Iterable[int], cause: str, game_ids: Iterable[int] = ()) -> None:
    """Announce after commit which players' ratings moved: a board must never show a rating that could still roll
    back, and the listeners (leaderboards, abuse detection) are above this app, so it cannot call them."""
    ids = tuple(sorted(set(player_ids)))
    if ids:
        announce(RatingsChanged(game=title, player_ids=ids, cause=cause, game_ids=tuple(game_ids)))


# ---------------------------------------------------------------------------------------------------------------
# The Elo stage
# ---------------------------------------------------------------------------------------------------------------

def rate_pending(*, title: str, limit: int | None = None) -> BatchResult:
    """Rate up to ``limit`` pending games of ``title`` in arrival order, in one transaction.

    Reads: the stage lock, the games, their seats, the ratings they need (locked, id order), the Hanabot table
    for Hanabi. Writes: new and updated ratings, history, game statuses and the seq, each one bulk statement.
    Calling it again (a redelivered task) finds nothing pending and changes nothing.
    """
    limit = limit or settings.RATING_BATCH_SIZE
    with transaction.atomic():
        stage = _lock_stage(title, RatingStage.Stage.ELO)
        rows = readers.pending_games(title=title, limit=limit, hanabi=title == HANABI)
        if not rows:
            return BatchResult(title=title, games=0)
        states = readers.elo_states(title=title, player_ids={seat[0] for row in rows for seat in row.seats})
        plan = EloPlan(states=states, config=elo_config(), hanabi_rules=_hanabi_rules(title))
        first = stage.last_seq + 1
        seq = stage.last_seq
        with _no_gc():
            for row in rows:
                seq += 1
                plan.apply_game(row, seq)
        _write_elo(title=title, plan=plan, game_seqs=[(row.id, first + i) for i, row in enumerate(rows)])
        RatingStage.objects.filter(pk=stage.pk).update(last_seq=seq)
        announce_ratings(title=title, player_ids=plan.touched, cause="batch", game_ids=[row.id for row in rows])
    return BatchResult(title=title, games=len(rows), player_ids=sorted(plan.touched), first_seq=first, last_seq=seq)


def _write_elo(*, title: str, plan: EloPlan, game_seqs: list[tuple[int, int]]) -> None:
    states = plan.states
    new, updated = [], []
    for player_id in plan.touched:
        state = states[player_id]
        if state.rating_id is None:
            new.append((player_id, state.elo, state.games, state.last_game_at, None, None))
        else:
            updated.append((state.rating_id, state.elo, state.games, state.last_game_at))
    writers.insert_ratings(title=title, rows=new)
    writers.update_elo(rows=updated)
    writers.insert_changes(title=title, rows=plan.changes, created_at=timezone.now())
    writers.mark_games_rated(rows=game_seqs)


def pending_titles() -> list[str]:
    """Titles with games waiting for the Elo stage (uses the pending partial index)."""
    return sorted(set(Game.objects.filter(status=Game.Status.PENDING).values_list("title", flat=True).distinct()))


# ---------------------------------------------------------------------------------------------------------------
# The TrueSkill stage
# ---------------------------------------------------------------------------------------------------------------

def _trueskill_rated(title: str) -> bool:
    """TrueSkill is for matchmaking of competitive games: Hanabi has no places to rate (ratings.md)."""
    return not get_game(title).cooperative


def rate_trueskill_pending(*, title: str, limit: int | None = None) -> BatchResult:
    """Apply TrueSkill to up to ``limit`` Elo-rated games of ``title`` in ``rating_seq`` order, exactly once.

    Its own lock row, so it lags behind the Elo stage without ever holding it back; the Rating rows it needs
    already exist (the Elo stage created them) and it touches only their ts_* columns.
    """
    # The same batch size as Elo: its reads and writes per game shrink as a batch's players repeat, and a
    # TrueSkill batch (a few seconds) holds only its own lock, the rows' locks just for its final writes.
    limit = limit or settings.RATING_BATCH_SIZE
    todo = Game.objects.filter(title=title, status=Game.Status.RATED, trueskill_done=False)
    with transaction.atomic():
        stage = _lock_stage(title, RatingStage.Stage.TRUESKILL)
        if not _trueskill_rated(title):
            done = todo.update(trueskill_done=True)
            return BatchResult(title=title, games=done)
        rows, seqs = readers.trueskill_todo(title=title, limit=limit)
        if not rows:
            return BatchResult(title=title, games=0)
        states = readers.skill_states(title=title, player_ids={seat[0] for row in rows for seat in row.seats})
        plan = SkillPlan(states=states)
        for row in rows:
            plan.apply_game(row)
        updates = sorted((states[p].rating_id, states[p].skill.mu, states[p].skill.sigma) for p in plan.touched)
        if any(rating_id is None for rating_id, _, _ in updates):
            raise RuntimeError(f"{title}: a rated game's player has no Rating row")
        writers.lock_ratings(ids=[u[0] for u in updates])
        writers.update_skill(rows=updates)
        writers.mark_trueskill_done(ids=[row.id for row in rows])
        RatingStage.objects.filter(pk=stage.pk).update(last_seq=seqs[-1])
    return BatchResult(title=title, games=len(rows), player_ids=sorted(plan.touched), first_seq=seqs[0],
                       last_seq=seqs[-1])


def trueskill_titles() -> list[str]:
    """Titles with Elo-rated games the TrueSkill stage has not applied yet."""
    return sorted(set(Game.objects.filter(status=Game.Status.RATED, trueskill_done=False)
                      .values_list("title", flat=True).distinct()))


# ---------------------------------------------------------------------------------------------------------------
# Moderator reset
# ---------------------------------------------------------------------------------------------------------------

def rating_reset(*, player: Player, titles: Iterable[str] | None = None, at: datetime | None = None
                 ) -> list[ResetResult]:
    """Reset ``player``'s Elo to the initial rating in every title they have a rating in (or only ``titles``).

    Written as a ``reset`` history row taking the title's next seq under the title's Elo lock, so it falls
    between two batches and a rebuild replays it at the same point. Games played are kept (moderation.md), so
    K does not start over; TrueSkill is matchmaking's estimate and is left as it is. Titles are locked in name
    order, the one order every multi-title locker uses.
    """
    at = at or timezone.now()
    results: list[ResetResult] = []
    with transaction.atomic():
        wanted = Rating.objects.filter(player=player)
        if titles is not None:
            wanted = wanted.filter(title__in=list(titles))
        for title in sorted(set(wanted.values_list("title", flat=True))):
            stage = _lock_stage(title, RatingStage.Stage.ELO)
            rating = Rating.objects.select_for_update().get(player=player, title=title)
            seq = stage.last_seq + 1
            plan = EloPlan(states={player.pk: PlayerState(rating.pk, rating.elo, rating.games)},
                           config=elo_config(), hanabi_rules=None)
            plan.apply_reset(player.pk, seq, at)
            writers.insert_changes(title=title, rows=plan.changes, created_at=timezone.now())
            Rating.objects.filter(pk=rating.pk).update(elo=plan.states[player.pk].elo)
            RatingStage.objects.filter(pk=stage.pk).update(last_seq=seq)
            results.append(ResetResult(title=title, player_id=player.pk, seq=seq, before=rating.elo))
        for result in results:
            announce_ratings(title=result.title, player_ids=[result.player_id], cause="reset")
    return results


# ---------------------------------------------------------------------------------------------------------------
# Rebuild
# ---------------------------------------------------------------------------------------------------------------

def rated_titles() -> list[str]:
    """Every title with a rating or a rated game: what ``rebuild_ratings`` covers by default."""
    titles = set(Rating.objects.values_list("title", flat=True).distinct())
    titles.update(Game.objects.filter(status=Game.Status.RATED).values_list("title", flat=True).distinct())
    return sorted(titles)


def _replay_games(title: str, *, hanabi: bool) -> Iterator[tuple[int, GameRow, bool]]:
    """(seq, row, trueskill_done) of every rated game in seq order, read in chunks."""
    after = None
    while True:
        rows, seqs, done = readers.rated_games(title=title, after_seq=after, limit=REBUILD_CHUNK, hanabi=hanabi)
        if not rows:
            return
        yield from zip(seqs, rows, done, strict=True)
        after = seqs[-1]


def rebuild(*, title: str, progress: Callable[[int, int], None] | None = None, check: bool = False
            ) -> RebuildResult:
    """Recompute ``title``'s ratings and history from its rated games and the resets, in seq order.

    Under both stage locks, so no batch or reset interleaves. Voided games are skipped (that is how a void gives
    victims their points back). Hanabi games replay against the bot rating they met (kept in the history), so
    a later edit of the Hanabot table does not rewrite them. TrueSkill is replayed too, over the games its
    stage had already applied (always a prefix of the seq order); the rest stay for the stage.

    ``check``: compute and compare with what is stored, write nothing; the result lists the mismatches.
    """
    result = RebuildResult(title=title, checked=check)
    hanabi = title == HANABI
    trueskill = _trueskill_rated(title)
    with transaction.atomic():
        _lock_stage(title, RatingStage.Stage.ELO)
        _lock_stage(title, RatingStage.Stage.TRUESKILL)
        history = RatingChange.objects.filter(title=title)
        resets = list(history.filter(kind=KIND_RESET).order_by("seq", "player_id")
                      .values_list("seq", "player_id", "finished_at"))
        opponents = dict(history.filter(kind=KIND_GAME, opponent__isnull=False)
                         .values_list("game_id", "opponent").distinct())
        total = Game.objects.filter(title=title, status=Game.Status.RATED).count() + len(resets)
        plan = EloPlan(states={}, config=elo_config(), hanabi_rules=_hanabi_rules(title))
        skills = SkillPlan(states={})
        # One per-title sequence numbers games and resets alike: merging by it restores the order of application.
        events = heapq.merge(_replay_games(title, hanabi=hanabi), resets, key=itemgetter(0))
        done = 0
        with _no_gc() if not trueskill else nullcontext():
            for seq, what, extra in events:
                if isinstance(what, GameRow):
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
        moved = set(Rating.objects.filter(title=title).values_list("player_id", flat=True)) | plan.states.keys()
        _write_rebuild(title, plan, skills)
        announce_ratings(title=title, player_ids=moved, cause="rebuild")
    return result


def _rebuilt_ratings(plan: EloPlan, skills: SkillPlan) -> dict[int, tuple]:
    """player_id -> (elo, games, last_game_at, ts_mu, ts_sigma) as the replay leaves them."""
    out = {}
    for player_id, state in plan.states.items():
        skill = skills.states.get(player_id)
        out[player_id] = (state.elo, state.games, state.last_game_at,
                          skill.skill.mu if skill else None, skill.skill.sigma if skill else None)
    return out


def _write_rebuild(title: str, plan: EloPlan, skills: SkillPlan) -> None:
    RatingChange.objects.filter(title=title).delete()
    Rating.objects.filter(title=title).delete()
    rows = [(player_id, *values) for player_id, values in sorted(_rebuilt_ratings(plan, skills).items())]
    writers.insert_ratings(title=title, rows=rows)
    writers.insert_changes(title=title, rows=plan.changes, created_at=timezone.now())


def _compare(title: str, plan: EloPlan, skills: SkillPlan) -> list[Mismatch]:
    """Bit-for-bit comparison of the replay with the stored ratings and history."""
    mismatches: list[Mismatch] = []
    computed = _rebuilt_ratings(plan, skills)
    stored = {player_id: tuple(values) for player_id, *values in Rating.objects.filter(title=title).values_list(
        "player_id", "elo", "games", "last_game_at", "ts_mu", "ts_sigma")}
    for player_id in sorted(computed.keys() | stored.keys()):
        if computed.get(player_id) != stored.get(player_id):
            mismatches.append(Mismatch("rating", player_id, stored.get(player_id), computed.get(player_id)))
    fields = ("seq", "player_id", "game_id", "kind", "before", "after", "delta", "k", "games_before", "place",
              "finished_at", "opponent")
    stored_changes = {(row[0], row[1]): row for row in RatingChange.objects.filter(title=title).values_list(*fields)}
    computed_changes = {(row.seq, row.player_id): tuple(row) for row in plan.changes}
    for key in sorted(computed_changes.keys() | stored_changes.keys()):
        if computed_changes.get(key) != stored_changes.get(key):
            mismatches.append(Mismatch("history", key, stored_changes.get(key), computed_changes.get(key)))
    return mismatches
