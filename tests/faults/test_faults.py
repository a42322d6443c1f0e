"""Jepsen-style faults against the production shape (tests/faults/conftest.py): one fault per test, an exact
check at the end (tests/faults/check.py). ``scripts/faults`` runs them; ``ARENA_FAULT_SCALE`` sets durations."""

from __future__ import annotations

import threading
import time

import pytest

from tests.faults.conftest import SCALE, Arena, scaled
from tests.faults.receiver import Receiver
from tests.faults.run import OPEN_TRANSACTION, callback, play, repeatedly

BANNED = "mallory"


def kills(full: int) -> int:
    """How many SIGKILLs: ``full`` at full length, fewer (at least 3) at a CI scale: each costs a restart."""
    return max(3, round(full * min(1.0, 2 * SCALE)))


ELO_KILLS, VOID_KILLS, MATCHMAKER_KILLS = kills(5), kills(6), kills(6)


def test_redis_stopped_for_20_seconds(arena: Arena):
    def fault() -> None:
        arena.cluster.redis.stop()
        time.sleep(scaled(20))
        arena.cluster.redis.start()

    outcome = play(arena, fault, seed=1)
    print(outcome.summary())


def test_postgresql_stopped_for_10_seconds(arena: Arena):
    def fault() -> None:
        arena.cluster.postgres.stop("fast")
        time.sleep(scaled(10))
        arena.cluster.postgres.start()

    outcome = play(arena, fault, seed=2, outage=True)
    print(outcome.summary())


def test_postgresql_restarted_in_fast_mode_twice(arena: Arena):
    def fault() -> None:
        arena.cluster.postgres.restart("fast")
        time.sleep(scaled(5, 2.0))
        arena.cluster.postgres.restart("fast")

    outcome = play(arena, fault, seed=3, outage=True)
    print(outcome.summary())


def test_elo_then_trueskill_worker_sigkilled_mid_batch(arena: Arena):
    before = arena.cluster.postgres.log_count(OPEN_TRANSACTION)
    inside: dict[str, int] = {}

    def fault() -> None:
        inside["elo"] = repeatedly(arena, "elo", kills=ELO_KILLS, seed=4)
        inside["trueskill"] = repeatedly(arena, "trueskill", kills=ELO_KILLS, seed=5)

    outcome = play(arena, fault, seed=4)
    assert arena.shape.starts["elo"] == arena.shape.starts["trueskill"] == ELO_KILLS + 1
    # Kills landed inside rating batches of both workers (most of them, over the two): PostgreSQL saw its clients
    # vanish mid-transaction.
    assert inside["elo"] >= 1 and inside["trueskill"] >= 1 and sum(inside.values()) >= ELO_KILLS, inside
    assert arena.cluster.postgres.log_count(OPEN_TRANSACTION) - before >= 2
    print(inside, outcome.summary())
    print(outcome.summary())


def test_worker_sigkilled_while_a_moderator_bans_and_voids(arena: Arena):
    inside: list[int] = []

    def fault() -> None:
        killer = threading.Thread(target=lambda: inside.append(repeatedly(arena, "elo", VOID_KILLS, 6)))
        killer.start()
        arena.shell(
            "from arena.models import Player; from moderation.services.penalties import player_ban; "
            f"player_ban(moderator=None, player=Player.objects.get(handle={BANNED!r}), note='fault suite')"
        )
        time.sleep(scaled(2))
        arena.shell(
            "from arena.models import Game; from moderation.services.penalties import games_void; "
            f"games = list(Game.objects.filter(seats__player__handle={BANNED!r}).exclude(status='void')"
            ".distinct()); print(len(games)); games_void(moderator=None, games=games, note='fault suite')"
        )
        killer.join()

    outcome = play(arena, fault, seed=6, banned=(BANNED,))
    # The fault did what it says: games voided mid-stream (refunded by the rebuild), later ones recorded unrated.
    assert outcome.figures["void"] > 0 and outcome.figures["unrated_banned"] > 0, outcome.figures
    assert inside[0] >= (VOID_KILLS + 1) // 2, f"only {inside[0]} of {VOID_KILLS} kills landed mid-transaction"
    print(inside, outcome.summary())


def test_beat_killed_and_restarted(arena: Arena):
    def fault() -> None:
        for _ in range(2):
            arena.shape.kill("beat")
            time.sleep(scaled(12, 3.0))  # longer than the 10 s sweep: a whole period without beat
            arena.shape.start("beat")
            time.sleep(scaled(3, 2.0))

    outcome = play(arena, fault, seed=7, tickets=1)
    assert arena.shape.starts["beat"] == 3
    print(outcome.summary())


def test_matchmaker_killed_mid_pass_while_tickets_stream_in(arena: Arena):
    receiver = Receiver()
    receiver.start()
    callback(arena, receiver)
    inside: list[int] = []
    try:
        outcome = play(
            arena,
            lambda: inside.append(repeatedly(arena, "matchmaking", MATCHMAKER_KILLS, 8, gap=(0.3, 1.5))),
            seed=8,
            games=False,
            tickets=2,
            receiver=receiver,
        )
    finally:
        receiver.stop()
    assert arena.shape.starts["matchmaking"] == MATCHMAKER_KILLS + 1
    assert inside[0] >= (MATCHMAKER_KILLS + 1) // 2, f"only {inside[0]} of {MATCHMAKER_KILLS} kills landed mid-pass"
    print(inside, outcome.summary())


def test_push_receiver_down_for_30_seconds(arena: Arena):
    receiver = Receiver()
    receiver.start()
    callback(arena, receiver)

    def fault() -> None:
        receiver.stop()
        time.sleep(scaled(30))
        receiver.start()

    try:
        outcome = play(arena, fault, seed=9, games=False, tickets=2, receiver=receiver)
    finally:
        receiver.stop()
    # The fault did hit: some tables formed while it was down were retried, each under its one delivery id.
    assert outcome.figures["retried"] > 0, outcome.figures
    print(outcome.summary())


pytestmark = pytest.mark.faults
