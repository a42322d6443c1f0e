"""The rough edges a new user met first: each answer checked as a real client meets it (CSRF enforced)."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from arena.models import Game
from tests.conftest import game_body, player

pytestmark = pytest.mark.django_db
SLUGS = "wizard, hanabi, tokaido, spades, railroad_ink, nile"


@pytest.fixture
def strict_api(server_key) -> APIClient:
    """Like ``api``, but with Django's CSRF checks on, as for a client outside the test runner."""
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {server_key[1]}")
    return client


@pytest.mark.parametrize("path", ["/api/v1/games", "/api/v1/nothing/here/", "/api/v1/games/batch"])
def test_a_post_to_an_unknown_api_path_is_a_json_404_even_with_csrf_enforced(strict_api, path):
    response = strict_api.post(path, {"table_id": "x"}, format="json")
    assert response.status_code == 404, response.content[:200]
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "not_found"
    assert Game.objects.count() == 0


def test_the_slashless_post_is_told_the_right_path_with_csrf_enforced(strict_api):
    response = strict_api.post("/api/v1/games", {}, format="json")
    assert response.json()["error"]["message"] == "No endpoint at /api/v1/games. Did you mean /api/v1/games/ ?"


def test_a_plain_django_client_with_csrf_checks_and_no_key_also_gets_json(db):
    client = Client(enforce_csrf_checks=True)
    response = client.post("/api/v1/players", data="{}", content_type="application/json")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    # The real endpoint, with CSRF enforced and without a key, is a 401 in the API's shape, not a CSRF page.
    response = client.post("/api/v1/games/", data="{}", content_type="application/json")
    assert response.status_code == 401 and response.json()["error"]["code"] == "missing_api_key"


def test_the_real_endpoint_records_with_csrf_enforced(strict_api):
    body = game_body("tokaido", [player("a", 30, achievements=1), player("b", 20, achievements=1)])
    assert strict_api.post("/api/v1/games/", body, format="json").status_code == 201


@pytest.mark.parametrize("path", ["/healthz", "/healthz/"])
def test_healthz_answers_with_and_without_the_slash(anon, path):
    response = anon.get(path)
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.mark.parametrize("path", ["/readyz", "/readyz/"])
def test_readyz_answers_with_and_without_the_slash(anon, path, settings):
    settings.REDIS_URL = ""
    response = anon.get(path)
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "checks": {"database": "ok"}}


def test_unknown_game_lists_the_slugs(api):
    response = api.post("/api/v1/games/", game_body("Railroad Ink", [player("a", 1), player("b", 2)]), format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "unknown_game"
    assert error["message"] == f"Arena does not rate a game called 'Railroad Ink'. The games are: {SLUGS}."
    assert error["fields"] == {"game": f"Unknown game; one of: {SLUGS}."}


def test_unknown_game_in_a_batch_lists_the_slugs_too(api):
    response = api.post(
        "/api/v1/games/batch/", {"games": [game_body("chess", [player("a", 1), player("b", 2)])]}, format="json"
    )
    result = response.json()["results"][0]
    assert result["status_code"] == 400 and SLUGS in result["body"]["error"]["message"]


def test_unknown_leaderboard_game_lists_the_slugs(anon):
    response = anon.get("/api/v1/leaderboards/chess/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "unknown_game"
    assert response.json()["error"]["message"].endswith(f"The games are: {SLUGS}.")


def test_a_misspelt_score_names_both_the_missing_and_the_unknown_field(api):
    body = game_body("wizard", [player("a", 10), {**player("b"), "scroe": 20}, player("c", 30)])
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "missing_field"
    assert response.json()["error"]["fields"] == {
        "players.1.score": "Required.",
        "players.1.scroe": "Unknown field; did you mean score?",
    }
    assert Game.objects.count() == 0


def test_a_misspelt_game_field_is_named_too(api):
    body = game_body("tokaido", [player("a", 30, achievements=1), player("b", 20, achievments=2)])
    response = api.post("/api/v1/games/", body, format="json")
    assert response.json()["error"]["fields"] == {
        "players.1.achievements": "Required.",
        "players.1.achievments": "Unknown field; did you mean achievements?",
    }


def test_an_unrelated_unknown_field_beside_a_missing_one_gets_no_guess(api):
    body = game_body("wizard", [player("a", 10), {**player("b"), "colour": "red"}, player("c", 30)])
    fields = api.post("/api/v1/games/", body, format="json").json()["error"]["fields"]
    assert fields == {"players.1.score": "Required.", "players.1.colour": "Unknown field."}


def test_a_lone_unknown_field_is_still_the_rules_unknown_field(api):
    body = game_body("tokaido", [player("a", 30, achievements=1), player("b", 20, achievements=2, coins=3)])
    error = api.post("/api/v1/games/", body, format="json").json()["error"]
    assert error["code"] == "unknown_field" and error["fields"] == {"players.1.coins": error["message"]}
