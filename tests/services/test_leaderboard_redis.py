"""The Redis board against real Redis and PostgreSQL: the same answers as the database board, kept in step.

Every test starts from an empty Redis database (``redis_conn``), so the first read finds no board, answers from
the database and queues a rebuild: the path a Redis restart or flush takes. The queued rebuild runs at once in
this process (``_worker_at_once``), inside the test's transaction, so it sees the test's rows.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.utils import timezone
from redis.exceptions import ConnectionError as RedisConnectionError

from arena.models import Player
from arena.players import player_status_ban, player_status_unban
from leaderboards import redis_board, services, tasks
from leaderboards.board import BoardUnavailable, active_cutoff
from leaderboards.db_board import DbBoard
from leaderboards.redis_board import RedisBoard, keys
from leaderboards.selectors import board_around, board_page, rank_of
from leaderboards.services import board_rebuild, board_sync, boards_prune
from ratings.models import Rating
from tests.db.leaderboards.helpers import board, expected_ids, names, random_ratings, ranks, rate

pytestmark = pytest.mark.django_db

K = keys("wizard")


@pytest.fixture(autouse=True)
def _fresh(redis_conn, settings):
    assert settings.REDIS_URL
    cache.clear()


@pytest.fixture(autouse=True)
def _worker_at_once(monkeypatch):
    """Stands in for the Celery worker: a queued rebuild runs at once."""
    monkeypatch.setattr(tasks.rebuild_board, "delay", lambda title: tasks.rebuild_board(title))


def sync(*ratings: Rating) -> None:
    for r in ratings:
        board_sync(title=r.title, player_ids=[r.player_id])


def test_first_read_builds_the_board_and_ties_share_a_rank(anon, redis_conn):
    rate("zed", 2012.4)
    rate("bob", 1900)
    rate("amy", 1900)
    rate("dan", 1800)
    response = board(anon)
    assert ranks(response) == [1, 2, 2, 4]
    assert names(response) == ["zed", "bob", "amy", "dan"]
    assert response.json()["total"] == 4
    assert redis_conn.exists(K.ready) and redis_conn.zcard(K.board) == 4


def test_a_page_is_one_redis_round_trip_and_no_query(anon, django_assert_num_queries):
    for i in range(30):
        rate(f"p{i}", 1500 + i)
    board(anon)  # builds
    with django_assert_num_queries(0):
        response = board(anon, limit=20, offset=5)
        around = board(anon, around="p10", limit=3)
    assert ranks(response) == list(range(6, 26))
    assert names(around) == ["p11", "p10", "p9"]


@pytest.mark.parametrize(("games", "days_ago", "ranked"), [(4, 1, False), (5, 1, True), (5, 89, True), (5, 91, False)])
def test_eligibility_edges(anon, games, days_ago, ranked):
    rate("edge", 1600, games=games, days_ago=days_ago)
    rate("other", 1500)
    assert ("edge" in names(board(anon))) is ranked


def test_sync_keeps_the_board_in_step_with_the_ratings(anon, redis_conn):
    a = rate("a", 1600)
    b = rate("b", 1500)
    c = rate("c", 1700, games=4)
    assert names(board(anon)) == ["a", "b"]
    # A rating batch commits: b overtakes a, c plays a fifth game. The board shows it after the sync only.
    Rating.objects.filter(pk=b.pk).update(elo=1650.5)
    Rating.objects.filter(pk=c.pk).update(games=5, last_game_at=timezone.now())
    assert names(board(anon)) == ["a", "b"]
    board_sync(title="wizard", player_ids=[a.player_id, b.player_id, c.player_id])
    response = board(anon)
    assert names(response) == ["c", "b", "a"] and response.json()["entries"][1]["elo"] == 1650.5
    # The games count shown comes from the board too, kept by the sync.
    Rating.objects.filter(pk=a.pk).update(games=9)
    sync(a)
    assert board(anon).json()["entries"][2]["games"] == 9


def test_a_large_sync_is_applied_in_chunks(redis_conn):
    rate("seed", 1500)
    board_rebuild(title="wizard")
    players = Player.objects.bulk_create([Player(handle=f"m{i:03}") for i in range(600)])
    now = timezone.now()
    Rating.objects.bulk_create(
        [
            Rating(player=p, title="wizard", elo=1000 + i, games=5 if i % 2 else 4, last_game_at=now)
            for i, p in enumerate(players)
        ]
    )
    board_sync(title="wizard", player_ids=[p.pk for p in players])
    assert redis_conn.zcard(K.board) == 301 and redis_conn.hlen(K.meta) == 301
    Rating.objects.filter(player__in=players).update(games=3)
    board_sync(title="wizard", player_ids=[p.pk for p in players])
    assert redis_conn.zcard(K.board) == redis_conn.zcard(K.seen) == 1


def test_sync_leaves_a_lost_board_alone(redis_conn):
    a = rate("a", 1600)
    sync(a)  # no board yet: nothing written, the first read will build it whole
    assert redis_conn.keys("lb:*") == []


def test_a_ban_removes_the_player_at_once(anon, django_capture_on_commit_callbacks):
    cheat = rate("cheat", 2500).player
    rate("cheat", 1800, title="tokaido")
    rate("fair", 1500)
    assert names(board(anon)) == ["cheat", "fair"]
    assert names(board(anon, "tokaido")) == ["cheat"]
    with django_capture_on_commit_callbacks(execute=True):
        player_status_ban(player=cheat)
    response = board(anon)
    assert names(response) == ["fair"] and ranks(response) == [1] and response.json()["total"] == 1
    assert board(anon, "tokaido").json()["total"] == 0
    assert board(anon, around="cheat").json()["error"]["code"] == "player_not_ranked"
    with django_capture_on_commit_callbacks(execute=True):
        player_status_unban(player=cheat)
    assert names(board(anon)) == ["cheat", "fair"]


def test_flushdb_then_the_next_request_answers_correctly(anon, redis_conn):
    for i in range(12):
        rate(f"p{i:02}", 1500 + (i // 2) * 10)
    before = board(anon, limit=200).json()
    redis_conn.flushdb()
    # A rating committed while Redis was empty: its sync was skipped, the rebuild reads it from the database.
    rate("late", 3000)
    sync(Rating.objects.get(player__handle="late"))
    after = board(anon, limit=200).json()
    assert after["total"] == before["total"] + 1
    assert after["entries"][0] == {
        "rank": 1,
        "player": "late",
        "elo": 3000.0,
        "games": 5,
        "provisional": True,
        "band": 180.0,
        "games_to_settle": 15,
    }
    assert after["entries"][1:] == [{**e, "rank": e["rank"] + 1} for e in before["entries"]]
    assert redis_conn.exists(K.ready)
    assert board(anon, limit=200).json() == after


def test_a_lost_board_is_queued_for_rebuild_once_and_answered_from_the_database(anon, redis_conn, monkeypatch):
    rate("a", 1600)
    rate("b", 1500)
    queued = []
    monkeypatch.setattr(tasks.rebuild_board, "delay", queued.append)
    for _ in range(3):
        assert names(board(anon)) == ["a", "b"]
    assert rank_of(title="wizard", player_id=Player.objects.get(handle="b").pk) == 2
    assert queued == ["wizard"] and not redis_conn.exists(K.ready)
    # The worker runs the task; from then on Redis answers (the database is not asked).
    assert tasks.rebuild_board("wizard") == 2
    assert redis_conn.exists(K.ready) and not redis_conn.exists(K.requested)


def test_while_another_process_rebuilds_readers_answer_from_the_database(anon, redis_conn):
    rate("a", 1600)
    rate("b", 1500)
    lock = redis_board.rebuild_lock("wizard", blocking=False)
    assert lock.acquire()  # another process is rebuilding
    try:
        assert names(board(anon)) == ["a", "b"]
        assert not redis_conn.exists(K.ready)
    finally:
        lock.release()


def test_the_hourly_prune_rebuilds_a_lost_board_nobody_reads(redis_conn):
    rate("a", 1600)
    assert boards_prune()["wizard"] == 1
    assert redis_conn.exists(K.ready) and redis_conn.zcard(K.board) == 1


def test_redis_unreachable_answers_from_the_database(anon, monkeypatch):
    rate("a", 1600)

    def down(*args, **kwargs):
        raise RedisConnectionError("down")

    monkeypatch.setattr(RedisBoard, "_read", down)
    assert names(board(anon)) == ["a"]


def test_inactive_players_drop_off_on_read_and_by_the_periodic_prune(anon, redis_conn, monkeypatch):
    rate("old", 1700, days_ago=89.5)
    rate("new", 1500, days_ago=1)
    assert names(board(anon)) == ["old", "new"]
    later = timezone.now() + timedelta(days=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    # Exact at read time, even before the prune ran.
    response = board(anon)
    assert names(response) == ["new"] and response.json()["total"] == 1
    redis_conn.delete(K.ready)
    board(anon)  # rebuilt as of "later"
    rate("stale", 1600, days_ago=89.5)  # as of "later": 90.5 days old a day after
    sync(Rating.objects.get(player__handle="stale"))
    assert redis_conn.zcard(K.board) == 2
    monkeypatch.setattr(timezone, "now", lambda: later + timedelta(days=1))
    assert boards_prune()["wizard"] == 1
    assert redis_conn.zcard(K.board) == redis_conn.zcard(K.seen) == redis_conn.hlen(K.meta) == 1


def test_prune_task_is_scheduled():
    from django.conf import settings

    schedule = settings.CELERY_BEAT_SCHEDULE["prune-inactive-leaderboards"]
    assert schedule["task"] == "leaderboards.tasks.prune_inactive" and schedule["schedule"] <= 3600


def test_rebuild_command(redis_conn):
    rate("a", 1600)
    rate("b", 1500, title="tokaido")
    rate("h", 1500, title="hanabi")
    call_command("rebuild_leaderboards")
    assert redis_conn.zcard(K.board) == 1 and redis_conn.zcard(keys("tokaido").board) == 1
    assert not redis_conn.exists(keys("hanabi").board)
    # A board the database says is empty is emptied, and still ready.
    Rating.objects.filter(title="tokaido").delete()
    call_command("rebuild_leaderboards", "--game", "tokaido")
    assert not redis_conn.exists(keys("tokaido").board) and redis_conn.exists(keys("tokaido").ready)
    with pytest.raises(CommandError, match="no leaderboard"):
        call_command("rebuild_leaderboards", "--game", "hanabi")
    assert not [k for k in redis_conn.keys("lb:*") if b":tmp:" in k]


def test_a_rating_committed_during_a_rebuild_is_not_lost(redis_conn, monkeypatch):
    a = rate("a", 1600)
    b = rate("b", 1500)
    snapshot = services._snapshot

    def racing_snapshot(title):
        rows = list(snapshot(title))  # the copy is read ...
        # ... then a batch commits and syncs while the copy is written to Redis.
        Rating.objects.filter(pk=b.pk).update(elo=1700)
        board_sync(title="wizard", player_ids=[b.player_id])
        yield from rows

    monkeypatch.setattr(services, "_snapshot", racing_snapshot)
    board_rebuild(title="wizard")
    assert [e.player for e in board_page(title="wizard", offset=0, limit=10).entries] == ["b", "a"]
    assert a.player_id and not redis_conn.exists(K.dirty)


def test_rank_of_and_around_through_redis(anon):
    alice = rate("alice", 1900).player
    rate("bob", 2000)
    rate("carol", 1900)
    newbie = rate("newbie", 2100, games=4).player
    assert rank_of(title="wizard", player_id=alice.pk) == 2
    assert rank_of(title="wizard", player_id=newbie.pk) is None
    assert rank_of(title="hanabi", player_id=alice.pk) is None
    assert [e.player for e in board_around(title="wizard", player="carol", limit=2).entries] == ["alice", "carol"]
    assert board(anon, around="newbie").json()["error"]["code"] == "player_not_ranked"


def test_hanabi_and_unknown_games(anon):
    assert board(anon, "hanabi").json()["error"]["code"] == "no_leaderboard"
    assert board(anon, "chess").json()["error"]["code"] == "unknown_game"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_redis_and_database_give_identical_answers(seed, redis_conn):
    rnd = random.Random(seed)
    ratings = []
    for i in range(300):
        # Few distinct Elo values, so ties are everywhere; games and ages straddle the edges.
        ratings.append(
            rate(
                f"r{seed}-{i:03}",
                rnd.choice([1400, 1450.25, 1500, 1500.125, 1620, 1800]),
                games=rnd.randint(3, 8),
                days_ago=rnd.uniform(0, 120),
            )
        )
    for r in rnd.sample(ratings, 10):
        Player.objects.filter(pk=r.player_id).update(status=Player.Status.BANNED)
    now = timezone.now()
    db = DbBoard("wizard", now=now)
    red = RedisBoard("wizard", cutoff=db.cutoff)
    with pytest.raises(BoardUnavailable):
        red.page(offset=0, limit=1)
    board_rebuild(title="wizard")
    # Some later changes through syncs, as the rating workers make them.
    changed = rnd.sample(ratings, 40)
    for r in changed:
        Rating.objects.filter(pk=r.pk).update(
            elo=rnd.choice([1450.25, 1500, 1700]),
            games=r.games + 1,
            last_game_at=now - timedelta(days=rnd.uniform(0, 100)),
        )
    board_sync(title="wizard", player_ids=[r.player_id for r in changed])
    total = db.page(offset=0, limit=1).total
    assert 50 < total < 300
    for offset, limit in [(0, 200), (0, 7), (13, 50), (total - 3, 10), (total, 5), (rnd.randint(0, total), 1)]:
        assert red.page(offset=offset, limit=limit) == db.page(offset=offset, limit=limit), (offset, limit)
    for r in ratings:
        assert red.rank(player_id=r.player_id) == db.rank(player_id=r.player_id)
    ordered = [e.player for e in db.page(offset=0, limit=200).entries]
    for handle in [ordered[0], ordered[-1], *(r.player.handle for r in rnd.sample(ratings, 30))]:
        for limit in (1, 6, 11):
            assert red.around(player=handle, limit=limit) == db.around(player=handle, limit=limit), (handle, limit)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_rule_the_sql_filter_and_the_lua_script_admit_the_same_players(redis_conn, seed):
    """Random players around a cutoff an hour from now: the board is written now (rebuild, then a sync of
    everyone), then read with the later cutoff, so the script's own sweep decides the players on the edge."""
    later = timezone.now() + timedelta(hours=1)
    cutoff = active_cutoff(later)
    ratings = random_ratings(random.Random(seed), count=150, cutoff=cutoff)
    expected = expected_ids(ratings, cutoff)
    assert 0 < len(expected) < len(ratings)
    assert set(DbBoard("wizard", now=later).eligible().values_list("player_id", flat=True)) == expected
    for write in ("rebuild", "sync"):
        redis_conn.flushdb()
        if write == "rebuild":
            board_rebuild(title="wizard")
        else:
            # An empty board to sync into: built while the ratings sit in another title, then everyone synced.
            Rating.objects.filter(title="wizard").update(title="tokaido")
            board_rebuild(title="wizard")
            Rating.objects.filter(title="tokaido").update(title="wizard")
            assert redis_conn.exists(K.ready) and redis_conn.zcard(K.board) == 0
            board_sync(title="wizard", player_ids=[r.player_id for r in ratings])
        page = RedisBoard("wizard", cutoff=cutoff).page(offset=0, limit=len(ratings) + 10)
        assert {entry.player_id for entry in page.entries} == expected, write
        assert page.total == len(expected)
