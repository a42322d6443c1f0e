"""The whole path with real processes: games posted over the API, a real ``celery worker`` rates them, the worker's
commit announces the new ratings, the Redis board is updated by the worker, and the board answers over HTTP from
Redis (no database query) with the numbers worked by hand from docs/ratings.md.
"""

from __future__ import annotations

import time

import pytest
from rest_framework.test import APIClient

from leaderboards.redis_board import keys
from tests.conftest import game_body, player
from tests.db.ratings.helpers import post
from tests.services.test_rating_worker import Worker, server_api, wait_until_done, worker  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db(transaction=True)
K = keys("tokaido")


def win(table_id: str, winner: str, loser: str) -> dict:
    return game_body(
        "tokaido", [player(winner, 40, achievements=1), player(loser, 30, achievements=1)], table_id=table_id
    )


def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_the_worker_keeps_the_redis_board_that_answers_over_http(
    worker: Worker,  # noqa: F811
    server_api: APIClient,  # noqa: F811
    redis_conn,
    django_assert_num_queries,
):
    anon = APIClient()
    # Five games, a beats b each time; both have fewer than 10 games, so K 60 throughout, P(2) = 1, and the
    # game is zero-sum (a + b stays 3000):
    #   g1 E = 0.5                                    a +30.0000 -> 1530.0000
    #   g2 diff 60:   E = 1 / (1 + 10^-0.15)  = 0.585499, a +60 * 0.414501 = +24.8701 -> 1554.8701
    #   g3 diff 109.7402: E = 1 / (1 + 0.531679) = 0.652878, a +20.8273 -> 1575.6974
    #   g4 diff 151.3948: E = 1 / (1 + 0.418324) = 0.705057, a +17.6966 -> 1593.3940
    #   g5 diff 186.7879: E = 1 / (1 + 0.341217) = 0.745592, a +15.2645 -> 1608.6584; b 1391.3416
    post(server_api, [win(f"g{i}", "a", "b") for i in range(1, 6)])
    wait_until_done(worker)

    # The first read finds no board in Redis: answered from the database, and the worker is asked to build it.
    first = anon.get("/api/v1/leaderboards/tokaido/").json()
    assert [(e["player"], e["elo"], e["games"]) for e in first["entries"]] == [("a", 1608.66, 5), ("b", 1391.34, 5)]
    wait_for(lambda: redis_conn.exists(K.ready))

    # g6: b beats a; diff 217.3169, E(b, a) = 1 / (1 + 10^(217.3169/400) = 3.493753) = 0.222531,
    #   b +60 * 0.777469 = +46.6481 -> 1437.9897; a -> 1562.0103.
    # c beats d five times: the same numbers as a over b, c 1608.6584 and d 1391.3416.
    post(server_api, [win("g6", "b", "a"), *[win(f"h{i}", "c", "d") for i in range(1, 6)]])
    wait_until_done(worker)
    # Only the worker touched Redis since: its sync after the batch commit put the new numbers there.
    wait_for(lambda: redis_conn.zcard(K.board) == 4)
    with django_assert_num_queries(0):
        response = anon.get("/api/v1/leaderboards/tokaido/")
    assert response.status_code == 200
    assert [(e["rank"], e["player"], e["elo"], e["games"]) for e in response.json()["entries"]] == [
        (1, "c", 1608.66, 5),
        (2, "a", 1562.01, 6),
        (3, "b", 1437.99, 6),
        (4, "d", 1391.34, 5),
    ]
    with django_assert_num_queries(0):
        around = anon.get("/api/v1/leaderboards/tokaido/", {"around": "b", "limit": 1}).json()
    assert [e["player"] for e in around["entries"]] == ["b"]
