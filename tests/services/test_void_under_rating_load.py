"""A void of 100 games while a real Celery worker rates (issue 27 §1; docs/moderation.md, "Under rating load").

On a shift a void of 100 games failed once as a deadlock victim on ``arena_game`` while the workers rated. Here a
real ``celery worker`` (the Elo, TrueSkill, arena and detection queues) rates a stream of games posted from a
thread while the moderator's void, the very service the panel calls, takes 100 rated games of a banned account:
the void must succeed (retried if the database picks it as a victim; ``moderation.services.penalties.retried``),
its rebuilds must land, and every rating must then equal the independent replay (tests/db/ratings/replay.py) of
every game posted, in posting order, without the voided ones. The refusal once retries run out (409
``database_busy``, never a 500) is tests/db/moderation/test_actions_retry.py.
"""

from __future__ import annotations

import collections
import random
import threading
import time

import pytest
from django.db import connection

from arena.models import Game, Player
from moderation.models import AuditEntry
from moderation.services import games_void, player_ban
from tests.db.ratings.bodies import random_bodies
from tests.db.ratings.helpers import post
from tests.db.ratings.replay import Replay, assert_matches
from tests.services.test_rating_worker import server_api, wait_until_done, worker  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db(transaction=True)
VOIDED = 100
REBUILD_TIMEOUT = 120.0


def _stream(api, bodies: list[dict], out: dict) -> None:
    """Post ``bodies`` in batches of 10, one after another, so the worker has rating to do throughout."""
    try:
        for start in range(0, len(bodies), 10):
            post(api, bodies[start : start + 10])
        out["posted"] = len(bodies)
    except BaseException as error:
        out["error"] = error
    finally:
        connection.close()


def test_a_void_of_100_games_while_the_worker_rates_succeeds_and_refunds_exactly(worker, server_api):  # noqa: F811
    first = random_bodies(random.Random(27), 900, pool=25, prefix="u")
    post(server_api, first)
    wait_until_done(worker)
    cheat = collections.Counter(p["player"] for g in first for p in g["players"]).most_common(1)[0][0]
    player_ban(moderator=None, player=Player.objects.get(handle=cheat), note="test")
    voided = list(
        Game.objects.filter(seats__player__handle=cheat, status=Game.Status.RATED).distinct().order_by("pk")[:VOIDED]
    )
    assert len(voided) == VOIDED

    # The stream: games among the other players only (the cheat is banned), new table ids.
    more = [
        g
        for g in random_bodies(random.Random(28), 900, pool=25, prefix="u")
        if cheat not in {p["player"] for p in g["players"]}
    ]
    for i, body in enumerate(more):
        body["table_id"] = f"stream-{i}"
    out: dict = {}
    streaming = threading.Thread(target=_stream, args=(server_api, more, out))
    streaming.start()
    deadline = time.monotonic() + 60
    while Game.objects.filter(table_id__startswith="stream-").count() < 100 and time.monotonic() < deadline:
        time.sleep(0.05)
    rating_meanwhile = Game.objects.filter(table_id__startswith="stream-", status=Game.Status.PENDING).exists()
    entry = games_void(moderator=None, games=voided, note="ring, under load")  # raises on failure: no 500 path
    streaming.join(300)
    assert not streaming.is_alive() and "error" not in out, out
    wait_until_done(worker)
    started = time.monotonic()
    while (
        AuditEntry.objects.get(pk=entry.pk).details.get("pending_titles")
        and time.monotonic() - started < REBUILD_TIMEOUT
    ):
        time.sleep(0.2)
    details = AuditEntry.objects.get(pk=entry.pk).details
    assert details["pending_titles"] == [], details["pending_titles"]
    wait_until_done(worker)

    assert Game.objects.filter(status=Game.Status.VOID).count() == VOIDED
    gone = {g.table_id for g in voided}
    replay = Replay()
    replay.play([g for g in [*first, *more] if g["table_id"] not in gone])
    assert_matches(replay)
    print(
        f"\nvoided {VOIDED} games across {len(details['titles'])} titles while {len(more)} games streamed "
        f"(games still waiting for the worker at the void: {rating_meanwhile})"
    )
