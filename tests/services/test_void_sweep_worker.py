"""A void's rebuilds survive a SIGKILLed worker: the sweep queues them again from the audit entry, within a bound.

The worker (with its embedded beat) is killed, whole process group, as soon as the first title's rebuild has
committed and others are still pending: the rebuild it was running rolls back, and the messages it had
prefetched stay unacknowledged in Redis for the visibility timeout (an hour). The restarted worker's beat runs
``sweep_void_rebuilds`` every VOID_REBUILD_SWEEP_SECONDS (2 here) and queues again every rebuild pending for more
than VOID_REBUILD_OVERDUE_SECONDS (4 here) after the void. Bound stated: every title rebuilt within
overdue + period + BOUND_MARGIN seconds of the restart, the margin covering the worker's start and the rebuilds
themselves. Then every rating equals an independent replay (tests/db/ratings/replay.py, from docs/ratings.md)
of the games without the voided ones, and every refund on the entry is exactly (before the void, after it).
"""

from __future__ import annotations

import collections
import random
import signal
import time

import pytest

from arena.models import Game, Player
from moderation.models import AuditEntry
from moderation.services import games_void, player_ban
from ratings.models import Rating
from tests.db.ratings.bodies import random_bodies
from tests.db.ratings.helpers import post
from tests.db.ratings.replay import Replay, assert_matches
from tests.services.test_rating_worker import Worker, server_api, wait_until_done  # noqa: F401 - fixture
from tests.services.workers import worker_env

SWEEP_SECONDS, OVERDUE_SECONDS, BOUND_MARGIN = 2.0, 4.0, 40.0
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def worker(transactional_db, redis_conn, tmp_path):
    from tests.db.ratings.helpers import ensure_hanabot_table

    ensure_hanabot_table()
    env = worker_env(VOID_REBUILD_SWEEP_SECONDS=str(SWEEP_SECONDS), VOID_REBUILD_OVERDUE_SECONDS=str(OVERDUE_SECONDS))
    running = Worker(env, tmp_path, tmp_path / "beat-schedule")
    running.start()
    yield running
    running.kill(signal.SIGTERM)


def _pending(entry_id: int) -> list[str]:
    return AuditEntry.objects.get(pk=entry_id).details.get("pending_titles", [])


def test_void_rebuilds_lost_with_a_killed_worker_are_swept_and_exact(worker, server_api):  # noqa: F811
    games = random_bodies(random.Random(41), 2400, pool=60, prefix="v")
    for start in range(0, len(games), 400):
        post(server_api, games[start : start + 400])
    wait_until_done(worker)

    # The cheat: the handle in most games; every rated game of theirs is voided at once, in every title.
    counts = collections.Counter(p["player"] for g in games for p in g["players"])
    cheat = counts.most_common(1)[0][0]
    player_ban(moderator=None, player=Player.objects.get(handle=cheat), note="test")
    voided = list(Game.objects.filter(seats__player__handle=cheat, status=Game.Status.RATED).distinct())
    titles = sorted({g.title for g in voided})
    assert len(titles) >= 4, titles
    before = {(h, t): e for h, t, e in Rating.objects.values_list("player__handle", "title", "elo")}
    entry = games_void(moderator=None, games=voided, note="ring")  # its commit queues one rebuild per title

    deadline = time.monotonic() + 120
    while len(_pending(entry.pk)) == len(titles) and time.monotonic() < deadline:
        time.sleep(0.005)
    worker.kill(signal.SIGKILL)
    killed_with = _pending(entry.pk)
    assert 0 < len(killed_with) < len(titles), f"not killed mid-way: pending {killed_with} of {titles}"

    restarted = time.monotonic()
    worker.start()
    bound = OVERDUE_SECONDS + SWEEP_SECONDS + BOUND_MARGIN
    while _pending(entry.pk) and time.monotonic() - restarted < bound:
        time.sleep(0.1)
    took = time.monotonic() - restarted
    assert _pending(entry.pk) == [], f"{_pending(entry.pk)} still pending {bound:.0f} s after the restart"
    wait_until_done(worker)  # the ratings queued after each rebuild (none here) and anything else

    voided_tables = {g.table_id for g in voided}
    replay = Replay()
    replay.play([g for g in games if g["table_id"] not in voided_tables])
    assert_matches(replay)
    details = AuditEntry.objects.get(pk=entry.pk).details
    assert sorted(details["refunds"]) == titles
    for title, refunds in details["refunds"].items():
        assert refunds, title
        for refund in refunds:
            key = (refund["handle"], title)
            assert refund["before"] == pytest.approx(before.get(key), abs=1e-9), key
            assert refund["after"] == pytest.approx(
                replay.ratings[key][0] if key in replay.ratings else None, abs=1e-6
            ), key
    print(
        f"\nkilled with {len(killed_with)} of {len(titles)} rebuilds pending; all rebuilt {took:.1f} s after "
        f"the restart (bound {bound:.0f} s)"
    )
