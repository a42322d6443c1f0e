"""The player reads are public (no key), throttled per client IP, and documented in the schema."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.db.ratings.builders import make_player


@pytest.fixture
def public_rate(settings):
    def set_rate(rate: str) -> None:
        # A new dict (not an in-place edit), so DRF reloads its settings and the fixture can restore them.
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"public": rate}}

    return set_rate


def test_no_key_needed_and_a_bad_key_is_ignored(db):
    make_player("alice")
    client = APIClient()
    assert client.get("/api/v1/players/alice/").status_code == 200
    client.credentials(HTTP_AUTHORIZATION="Api-Key not-a-key")
    assert client.get("/api/v1/players/alice/").status_code == 200
    assert client.get("/api/v1/players/alice/history/wizard/").status_code == 200


def test_throttled_per_ip_with_retry_after(db, public_rate):
    public_rate("3/min")
    make_player("alice")
    client = APIClient(REMOTE_ADDR="203.0.113.7")
    # Both reads, and the 404s, draw from the same per-IP bucket.
    assert client.get("/api/v1/players/alice/").status_code == 200
    assert client.get("/api/v1/players/nobody/").status_code == 404
    assert client.get("/api/v1/players/alice/history/wizard/").status_code == 200

    refused = client.get("/api/v1/players/alice/")

    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "throttled"
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert client.get("/api/v1/players/alice/history/wizard/").status_code == 429
    # Another address has its own allowance.
    assert APIClient(REMOTE_ADDR="198.51.100.2").get("/api/v1/players/alice/").status_code == 200


def test_default_rate_comes_from_settings(db, settings):
    from infra.api.throttles import PublicThrottle

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"public": "7/hour"}}
    assert PublicThrottle().rate() == (7, 3600)
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"public": None}}
    assert PublicThrottle().rate() is None  # DRF's convention for "no limit"


def test_schema_documents_the_player_reads(db, anon):
    response = anon.get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json()
    paths = schema["paths"]
    assert "/api/v1/players/{player}/" in paths
    history = paths["/api/v1/players/{player}/history/{game}/"]["get"]
    params = {p["name"]: p for p in history["parameters"]}
    assert params["limit"]["in"] == "query" and params["limit"]["schema"]["type"] == "integer"
    assert params["before"]["in"] == "query"
    assert {"player", "game"} <= set(params)
    assert history["security"] == [{}]  # OpenAPI for "no key needed"
    components = schema["components"]["schemas"]
    assert set(components["HistoryEntryOut"]["properties"]) == {
        "game_id",
        "finished_at",
        "before",
        "after",
        "delta",
        "place",
        "kind",
        "explanation",
        "provisional",
        "band",
        "games_to_settle",  # docs/ratings.md, "How settled is a rating"
    }
    assert set(components["PlayerOut"]["properties"]) == {"player", "status", "ratings", "reputation", "cooldown"}
    assert set(components["PlayerRatingOut"]["properties"]) == {
        "elo",
        "level",
        "games",
        "rank",
        "not_ranked",
        "provisional",
        "band",
        "games_to_settle",
    }
    assert set(components["HistoryOut"]["properties"]) == {"entries", "next"}
    ok = paths["/api/v1/players/{player}/"]["get"]["responses"]
    assert {"200", "404", "429"} <= set(ok)
