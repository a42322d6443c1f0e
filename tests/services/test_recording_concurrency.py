"""A game server that retries on timeout sends the same table several times at once: one game, never two."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from rest_framework.test import APIClient

from arena.models import Game, Player, Seat
from tests.conftest import game_body, player

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
    games = [game_body("tokaido", [player(f"b{i}", i, achievements=1), player(f"c{i}", 0, achievements=0)])
             for i in range(40)]
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
        order = names[i % 4:] + names[:i % 4]
        if i % 2:
            order.reverse()
        bodies.append(game_body("wizard", [player(name, 10 * rank) for rank, name in enumerate(order)]))
    responses = _post_all_at_once(server_key[1], "/api/v1/games/", bodies)
    assert [r.status_code for r in responses] == [201] * PARALLEL, [r.json() for r in responses]
    assert Player.objects.filter(handle__in=names).count() == 4
    assert Seat.objects.count() == 4 * PARALLEL
