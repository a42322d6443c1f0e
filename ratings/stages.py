"""What every rating stage shares: the stage lock that gives order and exactly-once, and the title's rules.

Order and exactly-once come from the database, never from the task queue:

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
- TrueSkill is a second ordered stage with its own lock row: it takes the rated games after its row's
  ``last_seq`` in ``rating_seq`` order and advances ``last_seq`` in the same transaction (no write to the games).
  It only ever writes the ts_* columns, so the two stages never undo each other; their Rating row locks are
  taken in id order, so they never deadlock.
- Several titles are locked in name order, the one order every multi-title locker uses.

A game whose player was banned after it was recorded but before it was rated is rated as recorded: the ban
applies to games recorded after it (docs/moderation.md: "its new games ... rated for nobody"), and a moderator who
wants such a game gone voids it and rebuilds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from arena.games import get_game
from infra.announcements import RatingsChanged, announce
from ratings import hanabi
from ratings.config import hanabot_below_rule
from ratings.models import HanabotRating, RatingStage
from ratings.plan import HanabiRules


@dataclass(frozen=True)
class BatchResult:
    """What one batch did: the games it applied and the players whose Rating row changed."""

    title: str
    games: int
    player_ids: list[int] = field(default_factory=list)
    first_seq: int | None = None
    last_seq: int | None = None


def stage_lock(title: str, stage: str) -> RatingStage:
    """Lock the (title, stage) row for this transaction, creating it on first use (safe when two race)."""
    rows = RatingStage.objects.select_for_update().filter(title=title, stage=stage)
    row: RatingStage | None = rows.first()
    if row is None:
        RatingStage.objects.bulk_create([RatingStage(title=title, stage=stage)], ignore_conflicts=True)
        row = rows.get()
    return row


def stage_advance(stage: RatingStage, last_seq: int) -> None:
    """Record how far the stage has gone, inside the transaction that holds its lock."""
    RatingStage.objects.filter(pk=stage.pk).update(last_seq=last_seq)


def cooperative(title: str) -> bool:
    """The team plays against Hanabot rather than its players against each other (the game's rules say so)."""
    return get_game(title).cooperative


def deck_key(title: str) -> str | None:
    """The variant a title's rating reads (a cooperative game's deck picks the Hanabot table), or None."""
    return hanabi.DECK_VARIANT if cooperative(title) else None


def hanabi_rules(title: str) -> HanabiRules | None:
    """The Hanabot table as it is now, for a cooperative title (None otherwise): read once per batch, so an
    admin's edit applies to games rated after it."""
    if not cooperative(title):
        return None
    table = {
        (cls, size, score): elo
        for cls, size, score, elo in HanabotRating.objects.values_list("variant_class", "team_size", "score", "elo")
    }
    return HanabiRules(table=table, below_rule=hanabot_below_rule())


def ratings_announce(*, title: str, player_ids: Iterable[int], cause: str, game_ids: Iterable[int] = ()) -> None:
    """Announce after commit which players' ratings moved: a board must never show a rating that could still roll
    back, and the listeners (leaderboards, abuse detection) are above this app, so it cannot call them."""
    ids = tuple(sorted(set(player_ids)))
    if ids:
        announce(RatingsChanged(title=title, player_ids=ids, cause=cause, game_ids=tuple(game_ids)))
