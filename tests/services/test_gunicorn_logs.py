"""The web process's output is machine-readable by default in production (issue 18 §3, docs/observability.md).

gunicorn is started from the Procfile's own ``web`` line in production mode with ``LOG_FORMAT`` unset (so its
default, ``json``), asked a few requests with known request ids, and stopped with SIGTERM as honcho stops it.
Every line it wrote to stdout and stderr then parses as one JSON object; each request has exactly one line
(django-structlog's ``request_finished``), gunicorn's access log wrote none, and gunicorn's own lines (start,
worker boot, the signal, shutdown) are among the JSON ones.
"""

from __future__ import annotations

import json
import socket
import time

import pytest

from arena.servers import game_server_create
from config.logs import MASKED
from tests.services.test_raw_addresses_nowhere import Web, _free_port, _production_env, processes

pytestmark = pytest.mark.django_db(transaction=True)

# (path, a key of its own or None for the server's, the status expected): a probe, an authenticated read of a game
# that does not exist, a path no route matches, and a key that is not one.
ASKED = [
    ("/healthz", None, 200),
    ("/api/v1/games/999999/", None, 404),
    ("/api/v1/no-such-route/", None, 404),
    ("/api/v1/games/1/", "Api-Key not-a-key", 401),
]


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


# Malformed requests gunicorn refuses itself, before Django (issue 25, item 6): each answered 4xx, and each logged
# as "Invalid request from ip=...", which named the client's raw address. (request, the status expected)
MALFORMED = [
    (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n", 431),  # a header too long
    (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400),  # a request line too long
    (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Nul: a\x00b\r\n\r\n", 400),  # a NUL in a header
    (
        b"POST /api/v1/games/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"0\r\n\r\n",
        400,
    ),  # Content-Length and Transfer-Encoding both
]


def _raw_status(port: int, request: bytes) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while b"\r\n" not in answer:
            part = sock.recv(4096)
            if not part:
                break
            answer += part
    return int(answer.split(b" ", 2)[1])


def test_malformed_requests_are_refused_and_logged_without_the_clients_address(tmp_path, redis_conn):
    port = _free_port()
    env = _production_env(tmp_path, port)
    env.pop("LOG_FORMAT", None)
    with processes(["web"], env, tmp_path):
        Web(port, "").wait_up(tmp_path / "web.log")
        statuses = [_raw_status(port, request) for request, _ in MALFORMED]
        time.sleep(0.5)  # the worker's log lines are written after its answers
    assert statuses == [status for _, status in MALFORMED]
    records = [json.loads(line) for line in (tmp_path / "web.log").read_text().splitlines() if line.strip()]
    invalid = [r["event"] for r in records if r["event"].startswith("Invalid request from")]
    assert len(invalid) == len(MALFORMED), invalid
    assert all(event.startswith(f"Invalid request from {MASKED}: ") for event in invalid), invalid
    # The connecting address is 127.0.0.1 here: nowhere in those lines, in any spelling gunicorn uses.
    assert not [event for event in invalid if "127.0.0.1" in event or "ip=127" in event]
