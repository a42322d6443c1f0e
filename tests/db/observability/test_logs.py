"""Log lines (docs/observability.md): one JSON line per request and per task run, errors with their stack, and
never a key, a body or a raw address. The records go through the JSON formatter production uses (LOG_FORMAT=json)."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from tests.conftest import game_body, player

pytestmark = pytest.mark.django_db(transaction=True)

CLIENT_ADDRESS = "198.51.100.77"
PLAYER_ADDRESSES = ("203.0.113.45", "192.0.2.213", "2001:db8:77::9")


@pytest.fixture(autouse=True)
def _embedded(embedded_tasks):
    """The logs of the embedded mode's in-process tasks."""


def _client(key: str) -> APIClient:
    client = APIClient(REMOTE_ADDR=CLIENT_ADDRESS)
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    return client


def _wizard():
    return game_body("wizard", [player(f"p{i}", 30 - 10 * i, ip=ip) for i, ip in enumerate(PLAYER_ADDRESSES)])


def test_a_recording_is_one_request_line_with_its_game_and_no_secret(server_key, lines):
    server, key = server_key
    body = _wizard()
    answer = _client(key).post("/api/v1/games/", body, format="json", HTTP_X_REQUEST_ID="gs-7f3a.1")
    assert answer.status_code == 201
    assert answer["X-Request-ID"] == "gs-7f3a.1"
    text, records = lines()
    (line,) = [r for r in records if r["event"] == "request_finished"]
    assert not [r for r in records if r["event"] == "request_started"]
    assert line["request_id"] == "gs-7f3a.1"
    assert line["server"] == server.name
    assert line["route"] == "api/v1/games/"
    assert line["code"] == 201 and line["request"] == "POST /api/v1/games/"
    assert line["game_ids"] == [answer.json()["id"]]
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] > 0
    assert "ip" not in line and "user_id" not in line
    for secret in (key, CLIENT_ADDRESS, *PLAYER_ADDRESSES, body["table_id"]):
        assert secret not in text, secret


def test_a_rating_run_is_one_task_line_with_its_figures(server_key, lines, settings):
    settings.RATING_BATCH_SIZE = 500
    batch = {"games": [_wizard() for _ in range(3)]}
    assert _client(server_key[1]).post("/api/v1/games/batch/", batch, format="json").status_code == 200
    text, records = lines()
    (elo,) = [r for r in records if r["event"] == "task_finished" and r["task"] == "ratings.tasks.rate_elo"]
    assert elo["title"] == "wizard" and elo["games_rated"] == 3 and elo["batches"] == 1
    assert elo["batch_size"] == 500 and elo["state"] == "SUCCESS"
    assert 0 <= elo["lag_seconds"] < 60 and elo["duration_ms"] > 0
    (skill,) = [r for r in records if r["event"] == "task_finished" and r["task"] == "ratings.tasks.rate_trueskill"]
    assert skill["games_rated"] == 3
    (request,) = [r for r in records if r["event"] == "request_finished"]
    assert len(request["game_ids"]) == 3
    for secret in (server_key[1], CLIENT_ADDRESS, *PLAYER_ADDRESSES):
        assert secret not in text, secret


@pytest.mark.parametrize("sent", ["x" * 129, "a b", "id\nforged", "<script>"])
def test_a_request_id_that_is_not_a_plain_token_is_replaced(server_key, lines, sent):
    answer = _client(server_key[1]).get("/api/v1/games/1/", HTTP_X_REQUEST_ID=sent)
    made = answer["X-Request-ID"]
    assert made != sent and str(uuid.UUID(made)) == made
    _, records = lines()
    (line,) = [r for r in records if r["event"] == "request_finished"]
    assert line["request_id"] == made and line["code"] == 404


def test_an_error_is_one_line_with_its_stack_and_no_key(server_key, lines, monkeypatch):
    def broken(**_):
        raise RuntimeError("the selector broke")

    monkeypatch.setattr("doors.game_read.game_get_for_server", broken)
    client = _client(server_key[1])
    client.raise_request_exception = False
    answer = client.get("/api/v1/games/5/")
    assert answer.status_code == 500
    text, records = lines()
    (line,) = [r for r in records if r["event"] == "request_failed"]
    assert "Traceback" in line["exception"] and "RuntimeError: the selector broke" in line["exception"]
    assert line["route"] == "api/v1/games/<int:game_id>/" and line["code"] == 500
    assert answer["X-Request-ID"] == line["request_id"]
    assert [r["event"] for r in records].count("request_failed") == 1
    assert server_key[1] not in text and CLIENT_ADDRESS not in text


def test_the_address_would_show_if_django_structlog_logged_it(server_key, lines, settings):
    """The guard of the tests above: these lines do see an address when IP logging is on (its default)."""
    settings.DJANGO_STRUCTLOG_IP_LOGGING_ENABLED = True
    _client(server_key[1]).get("/api/v1/games/1/")
    text, _ = lines()
    assert CLIENT_ADDRESS in text
