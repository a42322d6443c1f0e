"""The open season's standings from the Redis copy against the database's and an independent replay
(docs/seasons.md "Standings in Redis"), on real Redis and PostgreSQL.

Every test starts from an empty Redis database: the first read finds no copy, answers from the database and has the
copy rebuilt (run at once here, standing in for the worker). Then each fold writes its batch into the copy, and every
page, window and league size must be the same from either store, and the same as a replay of the season's games.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
from django.core.cache import cache

from arena.models import Player
from arena.players import player_status_ban, player_status_unban
from seasons import standings, standings_redis, tasks
from seasons.models import Season
from seasons.selectors import player_season, standings_live, standings_live_around
from seasons.services import season_follow, season_open, season_replay_live
from tests.db.seasons.helpers import live_rows, rated_game, replayed_rows

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 10, 6, 12, tzinfo=UTC)
# Four-player tables: distinct places, and the worked example's tie (1, 2, 2, 4).
PLACES = [(1, 2, 3, 4), (1, 2, 2, 4), (1, 1, 3, 3), (2, 1, 4, 3)]


@pytest.fixture(autouse=True)
def _fresh(redis_conn, settings, monkeypatch):
    assert settings.REDIS_URL
    settings.SEASON_PLACEMENT_GAMES = 2
    cache.clear()
    monkeypatch.setattr(tasks.rebuild_standings, "delay", lambda season_id: tasks.rebuild_standings(season_id))


def play(players: list[Player], rnd: random.Random, games: int, start: int) -> None:
    for i in range(games):
        table = rnd.sample(players, 4)
        places = rnd.choice(PLACES)
        at = NOW + timedelta(minutes=start + i)
        rated_game("wizard", [(p, side, places[side]) for side, p in enumerate(table)], at)


def season() -> Season:
    return Season.objects.get(title="wizard", closed_at__isnull=True)


def from_db(settings, call):
    """The same read with no Redis copy in the picture: the embedded path (``kept_in_redis`` is the mode switch)."""
    with mock.patch.object(standings, "kept_in_redis", lambda: False):
        return call()


def held_by_redis(s: Season) -> bool:
    return standings_redis.read(s.title, s.pk, s.version, mode="page", arg=0, limit=1) is not None


def assert_same_either_way(settings, s: Season) -> None:
    total = live_rows(s)
    for offset, limit in [(0, 50), (0, 1), (3, 7), (10, 200), (len(total) - 2, 5), (len(total) + 5, 5)]:
        got = standings_live(season=s, offset=offset, limit=limit)
        want = from_db(settings, lambda o=offset, n=limit: standings_live(season=s, offset=o, limit=n))
        assert (got.total, got.rows, got.leagues) == (want.total, want.rows, want.leagues), (offset, limit)
    for handle in [row[0] for row in total]:
        for limit in (1, 4, 11):
            got = standings_live_around(season=s, player=handle, limit=limit)
            want = from_db(settings, lambda h=handle, n=limit: standings_live_around(season=s, player=h, limit=n))
            assert (got.total, got.rows, got.leagues) == (want.total, want.rows, want.leagues), (handle, limit)
        mine = player_season(title=s.title, player=handle)["rank"]
        assert mine == from_db(settings, lambda h=handle: player_season(title=s.title, player=h)["rank"]), handle


def test_the_copy_follows_each_batch_and_answers_as_the_database_and_the_replay(settings, redis_conn):
    rnd = random.Random(28)
    players = [Player.objects.create(handle=f"s{i:02d}") for i in range(40)]
    season_open(title="wizard", now=NOW)
    play(players, rnd, 20, 0)
    season_follow(title="wizard")
    s = season()
    assert not held_by_redis(s)
    standings_live(season=s, offset=0, limit=10)  # no copy yet: the database answers, the copy is rebuilt
    assert held_by_redis(s)
    for batch in range(1, 8):
        play(players, rnd, 12, batch * 100)
        season_follow(title="wizard")
        s = season()
        assert held_by_redis(s), "the stage wrote the batch into the copy: no rebuild needed"
        assert_same_either_way(settings, s)
        assert live_rows(s) == replayed_rows(s)
    leagues = {row[2] for row in live_rows(s)}
    assert len(leagues - {"bronze", None}) >= 2, leagues
    assert any(row[7] for row in live_rows(s)), "relegation zones above bronze were compared"
    assert any(a[1] == b[1] for a, b in zip(live_rows(s), live_rows(s)[1:], strict=False)), "no shared rank"


def test_a_page_from_the_copy_is_one_round_trip_and_no_query(settings, django_assert_num_queries):
    rnd = random.Random(3)
    players = [Player.objects.create(handle=f"q{i}") for i in range(8)]
    season_open(title="wizard", now=NOW)
    play(players, rnd, 12, 0)
    season_follow(title="wizard")
    s = season()
    standings_live(season=s, offset=0, limit=5)  # builds
    with django_assert_num_queries(0):
        page = standings_live(season=s, offset=0, limit=5)
    assert [r["rank"] for r in page.rows] == [r[1] for r in replayed_rows(s)[:5]]


def test_a_lost_copy_answers_from_the_database_then_rebuilds(settings, redis_conn):
    rnd = random.Random(5)
    players = [Player.objects.create(handle=f"l{i}") for i in range(10)]
    season_open(title="wizard", now=NOW)
    play(players, rnd, 30, 0)
    season_follow(title="wizard")
    s = season()
    standings_live(season=s, offset=0, limit=5)
    assert held_by_redis(s)
    redis_conn.flushdb()  # a Redis restart without persistence
    play(players, rnd, 10, 500)
    season_follow(title="wizard")  # the stage finds no copy at its version: it writes nothing
    s = season()
    assert not held_by_redis(s)
    first = standings_live(season=s, offset=0, limit=50)
    assert held_by_redis(s)
    assert [(r["player"], r["rank"], r["points"]) for r in first.rows] == [(r[0], r[1], r[3]) for r in replayed_rows(s)]
    assert_same_either_way(settings, s)


def test_a_ban_and_a_replay_move_the_version_and_the_copy_rebuilds_without_the_player(
    settings, redis_conn, django_capture_on_commit_callbacks
):
    rnd = random.Random(9)
    players = [Player.objects.create(handle=f"b{i}") for i in range(10)]
    season_open(title="wizard", now=NOW)
    play(players, rnd, 30, 0)
    season_follow(title="wizard")
    standings_live(season=season(), offset=0, limit=5)
    top = live_rows(season())[0][0]
    with django_capture_on_commit_callbacks(execute=True):
        player_status_ban(player=Player.objects.get(handle=top))
    s = season()
    assert not held_by_redis(s)
    assert top not in [r["player"] for r in standings_live(season=s, offset=0, limit=50).rows]
    assert held_by_redis(s)
    assert_same_either_way(settings, s)
    assert live_rows(s) == replayed_rows(s)
    with django_capture_on_commit_callbacks(execute=True):
        player_status_unban(player=Player.objects.get(handle=top))
    assert top in [r["player"] for r in standings_live(season=season(), offset=0, limit=50).rows]
    season_replay_live(title="wizard")
    s = season()
    assert not held_by_redis(s)
    assert_same_either_way(settings, s)
    assert live_rows(s) == replayed_rows(s)
