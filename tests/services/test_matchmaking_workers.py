"""Two real matchmaker worker processes (each with its own beat, so both run every pool every second) on
PostgreSQL and Redis, fed a stream of tickets through the API: every ticket matched at most once, every table
valid by docs/matchmaking.md, and the formed tables pushed, signed, to a real local HTTP receiver.
"""

from __future__ import annotations

import contextlib
import random
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from arena.models import SCOPES, Player
from arena.servers import game_server_create
from config.celery import app
from matchmaking import push
from matchmaking.models import Delivery, OpenSeat, Pool, ServerCallback, Table, Ticket
from matchmaking.preferences import preferences_set
from ratings.models import Rating
from tests.db.matchmaking import judge
from tests.db.matchmaking.receiver import receiver
from tests.process_groups import groups_stop
from tests.services.workers import CELERY, ROOT, worker_conf, worker_env

pytestmark = pytest.mark.django_db(transaction=True)


@contextlib.contextmanager
def matchmakers(tmp_path: Path, count: int = 2) -> Iterator[list[Path]]:
    """``count`` celery workers, each with an embedded beat, against the test database and Redis."""
    # The receiver is on 127.0.0.1: the development allowance, explicitly (production refuses loopback).
    # Quick retries, and enough of them that a receiver slowed by a loaded machine is still reached.
    env = worker_env(
        MATCHMAKING_PUSH_BACKOFF="0.2",
        MATCHMAKING_PUSH_ATTEMPTS="20",
        MATCHMAKING_PUSH_TIMEOUT="10",
        PUSH_ALLOW_PRIVATE_NETWORKS="true",
    )
    processes, logs = [], []
    for n in range(count):
        log_path = tmp_path / f"matchmaker-{n}.log"
        log = open(log_path, "wb")  # noqa: SIM115 - owned by the child
        processes.append(
            subprocess.Popen(
                [
                    CELERY,
                    "-A",
                    "config",
                    "worker",
                    "-B",
                    "-s",
                    str(tmp_path / f"beat-{n}"),
                    "-Q",
                    "matchmaking,pushes",
                    "--pool=prefork",
                    "--concurrency=2",
                    "--loglevel=INFO",
                    "-n",
                    f"matchmaker-{n}@%h",
                    "--without-mingle",
                    "--without-gossip",
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
        logs.append(log_path)
    try:
        yield logs
    finally:
        groups_stop(processes, grace=20)


def _api(name: str) -> tuple[APIClient, object]:
    issued = game_server_create(name=name, scopes=SCOPES)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {issued.key}")
    return client, issued.server


def _stream(rnd: random.Random, apis: list[APIClient], names: list[str], seconds: float) -> int:
    """Tickets for about ``seconds``: lone players and parties, two games, spread over both game servers."""
    posted = 0
    free = list(names)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and free:
        for _ in range(rnd.randint(3, 12)):
            if not free:
                break
            player = free.pop(rnd.randrange(len(free)))
            party = []
            if rnd.random() < 0.15 and free:
                friend = free.pop(rnd.randrange(len(free)))
                party = [{"player": friend, "ip": f"198.51.{rnd.randrange(4)}.{rnd.randrange(250)}"}]
            body = {
                "player": player,
                "ip": f"198.51.{rnd.randrange(4)}.{rnd.randrange(250)}",
                "party": party,
                "game": rnd.choice(["tokaido", "hanabi"]),
                "min_players": 2,
                "max_players": rnd.choice([4, 5]),
                "request_id": f"r-{player}",
            }
            api = rnd.choice(apis)
            response = api.post("/api/v1/matchmaking/tickets/", body, format="json")
            assert response.status_code == 201, response.json()
            if rnd.random() < 0.2:  # a game server retries: the same ticket, never a second one
                again = api.post("/api/v1/matchmaking/tickets/", body, format="json")
                assert again.status_code == 200 and again.json()["id"] == response.json()["id"]
            posted += 1
        time.sleep(rnd.uniform(0.0, 0.2))
    return posted


def _settled(timeout: float = 60.0) -> None:
    """Wait until every pool with tickets still waiting has had a pass at least two seconds from now."""
    deadline = time.monotonic() + timeout
    mark = timezone.now()
    while time.monotonic() < deadline:
        pools = list(Pool.objects.filter(tickets__status="waiting").distinct().values_list("last_pass_at", flat=True))
        if all(p is not None and (p - mark).total_seconds() >= 2 for p in pools):
            return
        time.sleep(0.25)
    pytest.fail("the matchmakers did not run every pool in time")


def test_two_matchmakers_match_each_ticket_at_most_once_and_push_every_table(tmp_path, redis_conn):
    rnd = random.Random(10)
    names = [f"s{i}" for i in range(400)]
    for name in names:
        Rating.objects.create(
            player=Player.objects.create(handle=name), title=rnd.choice(["tokaido", "hanabi"]), elo=rnd.gauss(1500, 120)
        )
    for name in rnd.sample(names, 40):
        preferences_set(handle=name, refuse_same_ip=rnd.random() < 0.5, blocked=rnd.sample(names, 3))
    (api_a, server_a), (api_b, _server_b) = _api("mm-a"), _api("mm-b")
    with receiver() as box, matchmakers(tmp_path) as logs:
        callback = ServerCallback.objects.create(server=server_a, url=box.url)
        posted = _stream(rnd, [api_a, api_b], names, seconds=10.0)
        _settled()
        # Tickets still waiting may yet be seated as their tolerance grows: wait for a moment when every table of
        # server A's tickets has its delivery, none is pending and the receiver has them all, and judge that moment.
        deadline = time.monotonic() + 60
        while True:
            pushed = Delivery.objects.filter(server=server_a).count()
            tables_a = Table.objects.filter(tickets__server=server_a).distinct().count()
            received = box.wait_for(pushed, timeout=5)
            pending = Delivery.objects.filter(status="pending").exists()
            if (pushed == tables_a and not pending and len(received) >= pushed) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        delivered = Delivery.objects.filter(server=server_a, status="delivered").count()
        delivery_ids = {str(d) for d in Delivery.objects.values_list("pk", flat=True)}
        worker_logs = [log.read_text(errors="replace") for log in logs]

    tickets = list(Ticket.objects.all())
    assert len(tickets) == posted > 50
    matched = [t for t in tickets if t.status == "matched"]
    assert len(matched) > posted // 2, Counter(t.status for t in tickets)
    # At most once: a matched ticket points at one table, and each table holds exactly its tickets' players.
    by_id = judge.units()
    tables = list(Table.objects.all())
    assert tables
    seats_per_table = Counter()
    for ticket in matched:
        seats_per_table[ticket.table_id] += by_id[str(ticket.pk)].seats
    for table in tables:
        assert seats_per_table[table.pk] == len(table.players) >= 2, "a table without all of its tickets"
        assert judge.table_problem(table, by_id) is None, (judge.table_problem(table, by_id), table.players)
    players = [p for table in tables for p in table.players]
    assert len(players) == len(set(players)), "a player seated at two tables"
    assert not OpenSeat.objects.exclude(ticket__status="waiting").exists()
    # Both processes ran passes: beat in each queued them every second (each run's task_finished line).
    for text in worker_logs:
        assert "matchmaking.tasks.run_due_pools" in text and "task_finished" in text and "SUCCESS" in text, text[-2000:]
    # Every table with server A's tickets was pushed to A, signed, each delivery id once or more.
    assert pushed == tables_a > 0
    assert delivered == pushed
    assert {r.headers["X-Arena-Delivery"] for r in received} == delivery_ids
    assert all(push.verify(callback.secret, r.headers["X-Arena-Signature"], r.body) for r in received)


def test_matchmaking_settings_are_applied_in_the_worker(tmp_path, redis_conn):
    with matchmakers(tmp_path, count=1):
        conf = worker_conf()
        assert conf["beat_schedule"]["matchmaking-passes"]["task"] == "matchmaking.tasks.run_due_pools"
        assert conf["beat_schedule"]["matchmaking-passes"]["schedule"] == 1.0
        assert conf["task_routes"]["matchmaking.tasks.run_due_pools"] == {"queue": "matchmaking"}
        assert conf["task_routes"]["matchmaking.tasks.deliver_table"] == {"queue": "pushes"}
        registered = app.control.inspect(timeout=2).registered() or {}
        names = set(next(iter(registered.values()), []))
        assert {"matchmaking.tasks.run_due_pools", "matchmaking.tasks.deliver_table"} <= names
