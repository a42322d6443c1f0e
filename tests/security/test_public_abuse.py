"""Issue 25 §2: failed API authentications are limited per client network, ``?explain=true`` history has its own
lower rate, and the player ids "." and ".." are refused (docs/security.md, "Limits at the API door")."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from tests.conftest import player

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_counters():
    cache.clear()
    yield
    cache.clear()


def test_the_61st_failed_key_in_a_minute_is_429_before_any_lookup(settings, django_assert_num_queries):
    settings.API_FAILED_AUTH_RATE = "60/min"
    guesser = APIClient(REMOTE_ADDR="198.51.100.23")
    guesser.credentials(HTTP_AUTHORIZATION="Api-Key not-a-real-key-000000000000")
    for _ in range(60):
        assert guesser.get("/api/v1/games/1/").status_code == 401
    with django_assert_num_queries(0):
        refused = guesser.get("/api/v1/games/1/")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "throttled"
    assert int(refused["Retry-After"]) >= 1
    # Another network is not held back, nor is a public read without a key from the guessing one.
    other = APIClient(REMOTE_ADDR="192.0.2.23")
    other.credentials(HTTP_AUTHORIZATION="Api-Key not-a-real-key-000000000000")
    assert other.get("/api/v1/games/1/").status_code == 401
    assert APIClient(REMOTE_ADDR="198.51.100.23").get("/healthz").status_code == 200


def test_explained_history_has_its_own_lower_rate(settings, api, make_game):
    settings.PUBLIC_EXPLAIN_THROTTLE_RATE = "3/min"
    api.post(
        "/api/v1/games/",
        make_game("tokaido", [player("ann", 10, achievements=1), player("bob", 5, achievements=0)]),
        format="json",
    )
    reader = APIClient(REMOTE_ADDR="198.51.100.24")
    path = "/api/v1/players/ann/history/tokaido/"
    assert [reader.get(path, {"explain": "true"}).status_code for _ in range(4)] == [200, 200, 200, 429]
    assert reader.get(path).status_code == 200  # the plain page is not counted by it


@pytest.mark.parametrize("handle", [".", ".."])
def test_dot_player_ids_are_refused(api, make_game, handle):
    body = make_game("tokaido", [player(handle, 10, achievements=1), player("bob", 5, achievements=0)])
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 400 and "players.0.player" in response.json()["error"]["fields"]
