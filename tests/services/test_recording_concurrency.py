"""Recording under concurrency on PostgreSQL: resends racing, players shared by games in flight, bans, and the
rating batches committing while games arrive. One game per table, never two; no 5xx; no lock cycle.

The lock tests pin the locks themselves with a second, raw connection holding what a rating batch or a moderator
holds (``lock_timeout`` turns a wait into a failure, so a lock cycle shows as a test failure, not a hang).
"""

from __future__ import annotations

import contextlib
import random
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from django.db import connection, transaction
from rest_framework.test import APIClient

from arena.models import Game, Player, Seat
from arena.recording import games_record
from arena.servers import game_server_create
from ratings.models import RatingChange
from tests.conftest import game_body, player
from tests.db.ratings.bodies import random_bodies
from tests.db.ratings.helpers import ensure_hanabot_table
from tests.db.ratings.replay import Replay, assert_matches
from tests.services.test_rating_worker import Worker, wait_until_done
from tests.services.workers import worker_env

pytestmark = pytest.mark.django_db(transaction=True)

PARALLEL = 8


def _post_all_at_once(key: str, path: str, payloads: list) -> list:
    barrier = threading.Barrier(len(payloads))

    def post(payload):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
        barrier.wait()
        try:
            return client.post(path, payload, format="json")
        finally:
            connection.close()

    with ThreadPoolExecutor(len(payloads)) as pool:
        return list(pool.map(post, payloads))


def test_parallel_identical_posts_create_one_game(server_key, redis_conn):
    body = game_body("wizard", [player(f"new-{i}", 10 * i) for i in range(4)])
    responses = _post_all_at_once(server_key[1], "/api/v1/games/", [body] * PARALLEL)
    codes = sorted(r.status_code for r in responses)
    assert codes == [200] * (PARALLEL - 1) + [201], [r.json() for r in responses]
    assert len({r.json()["id"] for r in responses}) == 1
    assert Game.objects.count() == 1 and Seat.objects.count() == 4 and Player.objects.count() == 4


def test_parallel_conflicting_posts_store_exactly_one_version(server_key, redis_conn):
    bodies = []
    for i in range(PARALLEL):
        body = game_body("wizard", [player("x", 100 + i), player("y", 50), player("z", 10)])
        body["table_id"] = "T-race"
        bodies.append(body)
    responses = _post_all_at_once(server_key[1], "/api/v1/games/", bodies)
    codes = sorted(r.status_code for r in responses)
    assert codes == [201] + [409] * (PARALLEL - 1)
    winner = next(b for b, r in zip(bodies, responses, strict=True) if r.status_code == 201)
    assert Seat.objects.get(player__handle="x").score == winner["players"][0]["score"]


def test_parallel_overlapping_batches_each_table_once(server_key, redis_conn):
    games = [
        game_body("tokaido", [player(f"b{i}", i, achievements=1), player(f"c{i}", 0, achievements=0)])
        for i in range(40)
    ]
    # Every thread sends the same 40 tables in a different order, so the inserts collide mid-batch.
    payloads = [{"games": games[i:] + games[:i]} for i in range(0, 40, 40 // PARALLEL)]
    responses = _post_all_at_once(server_key[1], "/api/v1/games/batch/", payloads)
    created = sum(r["status_code"] == 201 for resp in responses for r in resp.json()["results"])
    repeated = sum(r["status_code"] == 200 for resp in responses for r in resp.json()["results"])
    assert created == 40 and repeated == 40 * (len(payloads) - 1)
    assert Game.objects.count() == 40 and Seat.objects.count() == 80


def test_parallel_games_sharing_players_in_opposite_orders_all_land(server_key, redis_conn):
    # Each game creates or touches the same players, listed in a different order: the writes must neither
    # deadlock nor lose a seat, and every player exists once.
    names = [f"shared-{i}" for i in range(4)]
    bodies = []
    for i in range(PARALLEL):
        order = names[i % 4 :] + names[: i % 4]
        if i % 2:
            order.reverse()
        bodies.append(game_body("wizard", [player(name, 10 * rank) for rank, name in enumerate(order)]))
    responses = _post_all_at_once(server_key[1], "/api/v1/games/", bodies)
    assert [r.status_code for r in responses] == [201] * PARALLEL, [r.json() for r in responses]
    assert Player.objects.filter(handle__in=names).count() == 4
    assert Seat.objects.count() == 4 * PARALLEL


def test_parallel_batches_creating_the_same_new_players_all_land(server_key, redis_conn):
    # Different tables, the same brand-new players: every batch but the first finds them created by a request
    # that committed after its first statement began (invisible to it), and locks them in a second look.
    names = [f"fresh-{i}" for i in range(6)]
    payloads = []
    for i in range(PARALLEL):
        games = []
        for j in range(5):
            order = names[(i + j) % 6 :] + names[: (i + j) % 6]
            games.append(game_body("wizard", [player(name, 10 * rank) for rank, name in enumerate(order[:4])]))
        payloads.append({"games": games})
    responses = _post_all_at_once(server_key[1], "/api/v1/games/batch/", payloads)
    codes = [r["status_code"] for resp in responses for r in resp.json()["results"]]
    assert codes == [201] * 5 * PARALLEL, codes
    assert Player.objects.filter(handle__in=names).count() == 6
    assert Seat.objects.count() == 4 * 5 * PARALLEL


# ---------------------------------------------------------------- locks: what recording takes, and what it waits for


@contextlib.contextmanager
def other_session(**settings: str) -> Iterator[psycopg.Connection]:
    """A second session on the test database, in a transaction the test commits or rolls back itself."""
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "localhost",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
    ) as session:
        for name, value in settings.items():
            session.execute(f"SET {name} = '{value}'")
        try:
            yield session
        finally:
            session.rollback()


@contextlib.contextmanager
def session_settings(**settings: str) -> Iterator[None]:
    with connection.cursor() as cursor:
        for name, value in settings.items():
            cursor.execute(f"SET {name} = '{value}'")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            for name in settings:
                cursor.execute(f"RESET {name}")


def client(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    return api


def in_thread(work) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = work()
        except BaseException as error:  # reported by the test
            out["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def test_recording_never_waits_for_a_rating_batch_holding_its_players(server_key):
    # A rating batch in flight: its foreign-key checks (ratings, history rows) hold FOR KEY SHARE on its players.
    # Recording the same players' next games must not wait for it (the old ON CONFLICT DO UPDATE did: that wait,
    # with the batch waiting on the recording in turn, was the deadlock).
    api = client(server_key[1])
    first = api.post(
        "/api/v1/games/", game_body("wizard", [player("ann", 30), player("ben", 20), player("cat", 10)]), format="json"
    )
    assert first.status_code == 201
    with other_session() as rating_batch:
        rating_batch.execute(
            "SELECT id FROM arena_player WHERE handle = ANY(%s) ORDER BY id FOR KEY SHARE", [["ann", "ben", "cat"]]
        )
        with session_settings(lock_timeout="2s"):
            single = api.post(
                "/api/v1/games/",
                game_body("wizard", [player("cat", 3), player("ann", 2), player("dan", 1)]),
                format="json",
            )
            batch = api.post(
                "/api/v1/games/batch/",
                {
                    "games": [
                        game_body("wizard", [player(n, s) for n, s in (("ben", 9), ("ann", 8), ("eve", 7))]),
                        game_body("wizard", [player(n, s) for n, s in (("ann", 9), ("cat", 8), ("ben", 7))]),
                    ]
                },
                format="json",
            )
    assert single.status_code == 201, single.json()
    assert batch.status_code == 200 and [r["status_code"] for r in batch.json()["results"]] == [201, 201]


def test_a_rating_batch_never_waits_for_a_recording_in_flight(server_key):
    # The other way round: a batch of games being recorded (its transaction still open) holds its players FOR
    # SHARE only, which lets a rating batch's foreign-key checks (FOR KEY SHARE) straight through.
    server = server_key[0]
    Player.objects.bulk_create([Player(handle=h) for h in ("ann", "ben", "cat")])
    with transaction.atomic():
        outcomes = games_record(
            server=server,
            games=[
                _input(game_body("wizard", [player("ann", 3), player("ben", 2), player("cat", 1)])),
                _input(game_body("wizard", [player("cat", 3), player("ben", 2), player("dan", 1)])),
            ],
        )
        assert all(o.created for o in outcomes)
        with other_session(lock_timeout="2s") as rating_batch:
            locked = rating_batch.execute(
                "SELECT count(*) FROM (SELECT id FROM arena_player WHERE handle = "
                "ANY(%s) ORDER BY id FOR KEY SHARE) AS l",
                [["ann", "ben", "cat"]],
            )
            assert locked.fetchone() == (3,)


def test_a_ban_committed_while_the_game_waits_is_seen(server_key):
    # The moderator's UPDATE is not committed yet when the game arrives: the recording waits for it, sees the
    # ban, and records the game unrated (the rule is decided again from the status it then locked).
    api = client(server_key[1])
    Player.objects.bulk_create([Player(handle=h) for h in ("ann", "ben", "cat")])
    with other_session() as moderator:
        moderator.execute("UPDATE arena_player SET status = 'banned' WHERE handle = 'ben'")
        thread, out = in_thread(
            lambda: api.post(
                "/api/v1/games/",
                game_body("wizard", [player("ann", 3), player("ben", 2), player("cat", 1)]),
                format="json",
            )
        )
        thread.join(0.5)
        assert thread.is_alive(), "the game did not wait for the uncommitted ban"
        moderator.commit()
        thread.join(10)
    assert "error" not in out, out
    assert out["result"].status_code == 201 and out["result"].json()["status"] == "unrated"


def test_a_ban_waits_for_the_game_being_recorded(server_key):
    # A game whose players' statuses were read is committed with the status decided from them: a ban cannot slip
    # in between (it waits, and the game counts as recorded before the ban).
    Player.objects.bulk_create([Player(handle=h) for h in ("ann", "ben", "cat")])
    with transaction.atomic():
        (outcome, _) = games_record(
            server=server_key[0],
            games=[
                _input(game_body("wizard", [player("ann", 3), player("ben", 2), player("cat", 1)])),
                _input(game_body("wizard", [player("ann", 1), player("eve", 2), player("fay", 3)])),
            ],
        )
        assert outcome.game.status == Game.Status.PENDING
        with other_session(lock_timeout="300ms") as moderator, pytest.raises(psycopg.errors.LockNotAvailable):
            moderator.execute("UPDATE arena_player SET status = 'banned' WHERE handle = 'ben'")
    assert Game.objects.get(pk=outcome.game.pk).status == Game.Status.PENDING


def test_a_deadlock_victim_is_retried_not_a_500(server_key, caplog):
    # Force a real lock cycle with another session (a moderator banning two players, taking them in descending
    # id order, against the game's ascending one), and make the recording the victim PostgreSQL picks (its
    # deadlock check runs first). The caller still gets its 201: the service ran the write again. PostgreSQL checks
    # a wait for a cycle once, deadlock_timeout after it began: the recording's 2 s leave the moderator time to
    # close the cycle on a loaded machine (at 50 ms a late moderator found it first, at its own check), and the
    # moderator's 60 s are never reached.
    api = client(server_key[1])
    low, high = Player.objects.bulk_create([Player(handle="lo"), Player(handle="hi")])
    assert low.pk < high.pk
    with other_session(deadlock_timeout="60s") as moderator:
        moderator.execute("UPDATE arena_player SET created_at = created_at WHERE id = %s", [high.pk])

        def record():
            with session_settings(deadlock_timeout="2s"):
                return api.post(
                    "/api/v1/games/batch/",
                    {
                        "games": [
                            game_body("wizard", [player("lo", 3), player("hi", 2), player("zed", 1)]),
                            game_body("wizard", [player("hi", 3), player("lo", 2), player("yan", 1)]),
                        ]
                    },
                    format="json",
                )

        thread, out = in_thread(record)
        _wait_for_lock_wait()
        # Blocks on the recording's FOR SHARE of "lo": a cycle, and the recording's check finds it first.
        moderator.execute("UPDATE arena_player SET created_at = created_at WHERE id = %s", [low.pk])
        moderator.commit()
        thread.join(20)
    assert "error" not in out, out
    response = out["result"]
    assert response.status_code == 200 and [r["status_code"] for r in response.json()["results"]] == [201, 201]
    retried = [r for r in caplog.records if r.name == "infra.db" and "deadlock detected" in r.getMessage()]
    assert len(retried) == 1, [r.getMessage() for r in caplog.records]
    assert Game.objects.count() == 2 and Seat.objects.count() == 6


def _wait_for_lock_wait(timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.01)
    pytest.fail("no session came to wait on a lock")


def _input(body: dict[str, Any]):
    from arena.api.game_payload import parse_game

    return parse_game(body)


# ---------------------------------------------------------------- load: game servers posting while the worker rates

SERVERS = 6
LOAD_GAMES_PER_SERVER = 400
LOAD_POOL = 24  # players shared by every server: each game meets games in flight and batches being rated


@pytest.fixture
def rating_worker(transactional_db, redis_conn, tmp_path) -> Iterator[Worker]:
    """A real ``celery worker`` (with beat) rating in batches of 100, whose commits check thousands of foreign
    keys on the very players being recorded."""
    ensure_hanabot_table()
    env = worker_env(RATING_BATCH_SIZE="100")
    running = Worker(env, tmp_path, tmp_path / "beat-schedule")
    running.start()
    yield running
    running.kill(signal.SIGTERM)  # before the test database is flushed: the worker holds connections to it


def test_servers_posting_overlapping_players_while_the_worker_rates_lose_nothing(rating_worker):
    rnd = random.Random(81)
    bodies = random_bodies(rnd, SERVERS * LOAD_GAMES_PER_SERVER, pool=LOAD_POOL, prefix="o")
    keys = [game_server_create(name=f"load-{i}").key for i in range(SERVERS)]
    shares = [bodies[i::SERVERS] for i in range(SERVERS)]
    statuses: list[int] = []
    barrier = threading.Barrier(SERVERS)

    def serve(index: int) -> list[int]:
        api, mine, codes = client(keys[index]), shares[index], []
        local = random.Random(index)
        barrier.wait()
        try:
            at = 0
            while at < len(mine):
                if local.random() < 0.5:  # a single game, sometimes sent twice as a server retrying on timeout
                    response = api.post("/api/v1/games/", mine[at], format="json")
                    codes.append(response.status_code)
                    if local.random() < 0.1:
                        codes.append(api.post("/api/v1/games/", mine[at], format="json").status_code)
                    at += 1
                else:
                    size = local.randint(5, 40)
                    response = api.post("/api/v1/games/batch/", {"games": mine[at : at + size]}, format="json")
                    codes.append(response.status_code)
                    if response.status_code == 200:
                        codes.extend(r["status_code"] for r in response.json()["results"])
                    at += size
            return codes
        finally:
            connection.close()

    with ThreadPoolExecutor(SERVERS) as pool:
        for codes in pool.map(serve, range(SERVERS)):
            statuses.extend(codes)
    assert not [c for c in statuses if c >= 500], sorted(set(statuses))
    assert set(statuses) <= {200, 201}, sorted(set(statuses))
    assert statuses.count(201) == len(bodies)

    wait_until_done(rating_worker)
    # Every game stored once, with every seat; every rateable one rated exactly once.
    assert Game.objects.count() == len(bodies)
    assert Seat.objects.count() == sum(len(b["players"]) for b in bodies)
    rateable = [b for b in bodies if b.get("rated", True) and len(b["players"]) > 1]
    assert RatingChange.objects.filter(kind="game").count() == sum(len(b["players"]) for b in rateable)
    # And every rating is what a plain replay gives, in the order the stage applied the games.
    seq = dict(Game.objects.values_list("table_id", "rating_seq"))
    replay = Replay()
    replay.play(sorted(rateable, key=lambda b: seq[b["table_id"]]))
    assert_matches(replay, trueskill=True)
    # Each title's games took one seq each. (Not in id order: a batch's ids are taken before its commit, and a
    # single game with a later id may commit and be rated first; ratings.elo_batch orders by seq for that.)
    for title in {b["game"] for b in rateable}:
        seqs = list(Game.objects.filter(title=title, rating_seq__isnull=False).values_list("rating_seq", flat=True))
        assert len(seqs) == len(set(seqs)) == sum(b["game"] == title for b in rateable), title
