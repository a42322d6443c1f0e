"""The web process's output is machine-readable by default in production (issue 18 §3, docs/observability.md).

gunicorn is started from the Procfile's own ``web`` line in production mode with ``LOG_FORMAT`` unset (so its
default, ``json``), asked a few requests with known request ids, and stopped with SIGTERM as honcho stops it.
Every line it wrote to stdout and stderr then parses as one JSON object; each request has exactly one line
(django-structlog's ``request_finished``), gunicorn's access log wrote none, and gunicorn's own lines (start,
worker boot, the signal, shutdown) are among the JSON ones.
"""
from __future__ import annotations

import json

import pytest

from arena.servers import game_server_create
from tests.services.test_raw_addresses_nowhere import Web, _free_port, _production_env, processes

pytestmark = pytest.mark.django_db(transaction=True)

# (path, a key of its own or None for the server's, the status expected): a probe, an authenticated read of a game
# that does not exist, a path no route matches, and a key that is not one.
ASKED = [("/healthz", None, 200), ("/api/v1/games/999999/", None, 404), ("/api/v1/no-such-route/", None, 404),
         ("/api/v1/games/1/", "Api-Key not-a-key", 401)]


def test_every_line_gunicorn_writes_is_json_with_one_line_per_request(tmp_path, redis_conn):
    issued = game_server_create(name="logs")
    port = _free_port()
    env = _production_env(tmp_path, port)
    env.pop("LOG_FORMAT", None)  # production's default
    web = Web(port, issued.key)
    answered = {}
    with processes(["web"], env, tmp_path):
        web.wait_up(tmp_path / "web.log")
        for index, (path, key, expected) in enumerate(ASKED):
            request_id = f"logs-{index}"
            sent = {"X-Request-ID": request_id, **({"Authorization": key} if key else {})}
            status, _, headers = web.request("GET", path, headers=sent)
            assert status == expected, (path, status)
            assert headers.get("X-Request-ID") == request_id
            answered[request_id] = status
    text = (tmp_path / "web.log").read_text()
    lines = [line for line in text.splitlines() if line.strip()]
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            pytest.fail(f"a line of the web's output is not JSON: {line!r}\n--- the output:\n{text[-3000:]}")
        assert isinstance(records[-1], dict) and {"event", "level", "logger", "timestamp"} <= records[-1].keys()
    for request_id, status in answered.items():
        mine = [r for r in records if r.get("request_id") == request_id]
        assert [(r["event"], r["code"]) for r in mine] == [("request_finished", status)], mine
    assert not [r for r in records if r["logger"] == "gunicorn.access"]
    own = [r["event"] for r in records if r["logger"] == "gunicorn.error"]
    for said in ("Starting gunicorn", "Booting worker", "Handling signal: term", "Shutting down: Master"):
        assert any(event.startswith(said) for event in own), (said, own)
