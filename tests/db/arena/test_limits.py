"""Limits at the API door (docs/security.md, the limits): body caps, the write throttle, waiting tickets, the
blocked list's cap, the schema generated once, the public throttle's hashed key."""

from __future__ import annotations

import hashlib
import hmac
import io
import json

import pytest
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from arena.models import Game
from matchmaking.models import Preferences, Ticket
from tests.conftest import game_body, player
from tests.db.matchmaking.conftest import another_server, ticket_body

pytestmark = pytest.mark.django_db

GAMES = "/api/v1/games/"
BATCH = "/api/v1/games/batch/"
TICKETS = "/api/v1/matchmaking/tickets/"


def _tokaido(table: str = "T-cap") -> dict:
    return game_body(
        "tokaido", [player("alice", 61, achievements=3), player("bob", 55, achievements=1)], table_id=table
    )


def _padded(body: dict, size: int) -> bytes:
    """``body`` as JSON of exactly ``size`` bytes: spaces after the object are still valid JSON."""
    raw = json.dumps(body).encode()
    assert len(raw) <= size
    return raw + b" " * (size - len(raw))


def _error(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


@override_settings(API_MAX_BODY_BYTES=2000)
def test_a_body_at_the_cap_is_read_and_one_byte_more_is_413_with_nothing_written(api):
    over = api.generic("POST", GAMES, _padded(_tokaido("T-over"), 2001), content_type="application/json")
    assert _error(over) == (413, "body_too_large")
    assert "2000 bytes" in over.json()["error"]["message"]
    assert Game.objects.count() == 0
    at = api.generic("POST", GAMES, _padded(_tokaido("T-at"), 2000), content_type="application/json")
    assert at.status_code == 201 and Game.objects.count() == 1


@override_settings(API_MAX_BODY_BYTES=2000)
def test_a_declared_length_over_the_cap_is_refused_before_reading(api):
    """Content-Length says 10 MB: refused on the header alone (the test body is short, so a read would parse)."""
    response = api.generic(
        "POST", GAMES, json.dumps(_tokaido()).encode(), content_type="application/json", CONTENT_LENGTH=str(10_000_000)
    )
    assert _error(response) == (413, "body_too_large") and Game.objects.count() == 0


def _chunked(api, path: str, body: bytes):
    """A chunked request as a WSGI server hands it on: no Content-Length, the decoded body in wsgi.input, which
    (unlike the test client's own) reads as empty past its end."""
    return api.generic(
        "POST",
        path,
        b"",
        content_type="application/json",
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": io.BytesIO(body)},
    )


@override_settings(API_MAX_BODY_BYTES=2000, API_MAX_BATCH_BODY_BYTES=5000)
def test_a_chunked_body_meets_the_same_caps(api):
    ok = _chunked(api, GAMES, _padded(_tokaido("T-chunk"), 1500))
    assert ok.status_code == 201, ok.content
    assert _error(_chunked(api, GAMES, _padded(_tokaido("T-chunk2"), 3000))) == (413, "body_too_large")
    assert _error(_chunked(api, BATCH, _padded({"games": [_tokaido("T-chunk3")]}, 6000))) == (413, "body_too_large")
    assert Game.objects.count() == 1


@override_settings(API_MAX_BODY_BYTES=2000, API_MAX_BATCH_BODY_BYTES=5000)
def test_the_batch_has_its_own_larger_cap(api):
    batch = {"games": [_tokaido("T-b1"), _tokaido("T-b2")]}
    ok = api.generic("POST", BATCH, _padded(batch, 4000), content_type="application/json")
    assert ok.status_code == 200 and [r["status_code"] for r in ok.json()["results"]] == [201, 201]
    over = api.generic("POST", BATCH, _padded({"games": [_tokaido("T-b3")]}, 5001), content_type="application/json")
    assert _error(over) == (413, "body_too_large") and Game.objects.count() == 2
    # The single endpoint keeps its own cap: 4000 bytes is too much there.
    single = api.generic("POST", GAMES, _padded(_tokaido("T-b4"), 4000), content_type="application/json")
    assert _error(single) == (413, "body_too_large")


@pytest.fixture
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@override_settings(API_WRITE_THROTTLE_RATE="3/min")
def test_writes_are_throttled_per_key_with_retry_after(api, fresh_cache):
    for index in range(3):
        assert api.post(GAMES, _tokaido(f"T-w{index}"), format="json").status_code == 201
    refused = api.post(GAMES, _tokaido("T-w3"), format="json")
    assert _error(refused) == (429, "throttled") and refused["Content-Type"] == "application/json"
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert Game.objects.count() == 3
    # Reads are not writes; another key has its own allowance.
    assert api.get(f"/api/v1/games/{Game.objects.first().pk}/").status_code == 200
    assert another_server().post(GAMES, _tokaido("T-w4"), format="json").status_code == 201


@override_settings(API_WRITE_THROTTLE_RATE=None)
def test_no_write_limit_when_set_to_none(api, fresh_cache):
    for index in range(5):
        assert api.post(GAMES, _tokaido(f"T-n{index}"), format="json").status_code == 201


@override_settings(MATCHMAKING_MAX_WAITING_PER_SERVER=2, MATCHMAKING_PASS_ON_REQUEST=False)
def test_a_server_keeps_a_bounded_number_of_tickets_waiting(api):
    assert api.post(TICKETS, ticket_body("p1"), format="json").status_code == 201
    # A party is one ticket.
    party = ticket_body("p2", party=[{"player": "p3", "ip": "2001:db8:ffff::1"}])
    assert api.post(TICKETS, party, format="json").status_code == 201
    refused = api.post(TICKETS, ticket_body("p4"), format="json")
    assert _error(refused) == (429, "too_many_tickets") and "2 tickets waiting" in refused.json()["error"]["message"]
    assert Ticket.objects.count() == 2
    # Another server is not held back; and a cancelled ticket frees its place.
    assert another_server().post(TICKETS, ticket_body("p5"), format="json").status_code == 201
    first = Ticket.objects.filter(player__handle="p1").get()
    assert api.delete(f"{TICKETS}{first.pk}/").status_code == 200
    assert api.post(TICKETS, ticket_body("p4"), format="json").status_code == 201


@override_settings(MATCHMAKING_BLOCKED_MAX=3)
def test_the_blocked_cap_comes_before_any_validation(monkeypatch):
    """Four entries, each invalid and one a surrogate: the answer is the cap, and no entry was even looked at."""
    api = another_server()  # preferences are the account service's door: a key with the preferences scope
    looked_at = []
    monkeypatch.setattr("matchmaking.api.payload.is_player_id", lambda handle: looked_at.append(handle) or True)
    monkeypatch.setattr("matchmaking.api.payload.refuse_unstorable", lambda body: looked_at.append(body))
    response = api.put("/api/v1/players/alice/preferences/", {"blocked": ["bad name", "", 7, "x" * 500]}, format="json")
    assert _error(response) == (400, "too_many_blocked") and looked_at == []
    assert not Preferences.objects.exists()
    # Repeats count as sent: four entries are over a cap of three, whatever they are.
    again = api.put("/api/v1/players/alice/preferences/", {"blocked": ["a", "a", "a", "a"]}, format="json")
    assert _error(again) == (400, "too_many_blocked")


def test_the_schema_is_generated_once_per_process(monkeypatch):
    from drf_spectacular.generators import SchemaGenerator

    from arena.api.schema_view import CachedSpectacularAPIView

    monkeypatch.setattr(CachedSpectacularAPIView, "_schemas", {})
    calls = []
    original = SchemaGenerator.get_schema

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counting)
    client = APIClient()
    first = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    second = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert first.status_code == second.status_code == 200
    assert first.content == second.content and b'"/api/v1/games/"' in first.content
    assert len(calls) == 1


def _cache_keys() -> list[str]:
    """Every key of the cache as stored: the local-memory cache's own dict, or Redis's listing of its database."""
    store = cache._cache
    if isinstance(store, dict):
        return [str(key) for key in store]
    return [key.decode() for key in store.get_client().keys("*")]


@pytest.mark.parametrize(
    ("first", "second", "network", "same"),
    [
        ("203.0.113.7", "203.0.113.7", "203.0.113.7", True),
        ("203.0.113.7", "203.0.113.8", "203.0.113.7", False),
        ("2001:db8:1:2::1", "2001:db8:1:2:ffff::9", "2001:db8:1:2::/64", True),  # one /64, one bucket
        ("2001:db8:1:2::1", "2001:db8:1:3::1", "2001:db8:1:2::/64", False),
        ("::ffff:203.0.113.7", "203.0.113.7", "203.0.113.7", True),  # IPv4-mapped is the IPv4 address
    ],
)
def test_the_public_throttle_counts_per_network_under_a_hashed_key(fresh_cache, settings, first, second, network, same):
    from tests.db.ratings.builders import make_player

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"public": "1/min"}}
    make_player("alice")
    assert APIClient(REMOTE_ADDR=first).get("/api/v1/players/alice/").status_code == 200
    refused = APIClient(REMOTE_ADDR=second).get("/api/v1/players/alice/").status_code == 429
    assert refused is same
    keys = [key for key in _cache_keys() if "throttle:public:" in key]
    # The bucket is HMAC-SHA256(IP_HASH_KEY, "client:<network>"), worked out here from docs/security.md.
    bucket = hmac.new(settings.IP_HASH_KEY.encode(), f"client:{network}".encode(), hashlib.sha256).hexdigest()
    assert any(f"throttle:public:{bucket}:60:" in key for key in keys), keys
    assert all(first not in key and second not in key and network.split("/")[0] not in key for key in keys)


def test_a_write_is_not_refused_while_the_cache_is_unreachable(api, make_game, fresh_cache, settings, monkeypatch):
    """The throttles fail open (docs/security.md): with Redis down a game is still recorded; the fault suite's
    Redis test proves it against a stopped redis-server."""
    import redis.client
    from redis.exceptions import ConnectionError as RedisConnectionError

    from infra.api import throttles
    from tests.conftest import player

    def unreachable(*args, **kwargs):
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    settings.API_WRITE_THROTTLE_RATE = "1/min"
    monkeypatch.setattr(throttles.cache, "incr", unreachable)
    monkeypatch.setattr(throttles.cache, "add", unreachable)
    # On Redis the throttle counts in one MULTI/EXEC pipeline, not through the cache API: refuse that too.
    monkeypatch.setattr(redis.client.Pipeline, "execute", unreachable)
    for _ in range(3):
        body = make_game("tokaido", [player("ann", score=50, achievements=1), player("ben", score=40, achievements=0)])
        assert api.post("/api/v1/games/", body, format="json").status_code == 201
