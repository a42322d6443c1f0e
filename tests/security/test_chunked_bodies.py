"""Issue 25 §2: a chunked API body is read only after routing and authentication, under the endpoint's own cap.

The Procfile's own ``web`` line (gunicorn with config/http_worker.py) in production mode. Before the fix, an
anonymous chunked POST to a public GET path was read whole (up to the batch cap, 4 MiB) before Django answered
405, and gunicorn then read and discarded the rest of it. Here each client sends its headers and part of a body,
then stops sending without ending the body and waits for the answer: a server that reads the body before it
answers never answers (the read times out). An answer arrives only if the body was left unread, or read no
further than the endpoint's own cap. The connection is then closed, so gunicorn never reads the rest either.

The web runs on the database the suite is given: PostgreSQL in the service-backed pass (the test database and
Redis, as tests/services run it), a migrated SQLite file of its own in the embedded pass.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from tests.services.test_raw_addresses_nowhere import Web, _free_port, _seat, processes
from tests.services.workers import ROOT, worker_env

pytestmark = pytest.mark.django_db(transaction=True)

WAIT = 15.0  # seconds a client waits for an answer; a server reading the unfinished body would never give one
SINGLE_CAP = 256 * 1024  # API_MAX_BODY_BYTES, production's


def _env(tmp_path: Path, port: int) -> dict[str, str]:
    production = dict(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        IP_HASH_KEY=secrets.token_urlsafe(32),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",
        NUM_PROXIES="0",
        ARENA_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
        ARENA_VAR_DIR=str(tmp_path),
        LOG_LEVEL="WARNING",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    )
    if connection.vendor == "postgresql":
        return worker_env(REDIS_URL=os.environ["REDIS_URL"], **production)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(production, DJANGO_SETTINGS_MODULE="config.settings", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return env


@pytest.fixture(scope="module")
def web(tmp_path_factory, django_db_setup, django_db_blocker) -> Iterator[tuple[int, dict[str, str]]]:
    tmp_path = tmp_path_factory.mktemp("chunked")
    port = _free_port()
    with django_db_blocker.unblock():
        env = _env(tmp_path, port)
    with processes(["web"], env, tmp_path):
        Web(port, "").wait_up(tmp_path / "web.log")
        yield port, env


def _key(env: dict[str, str]) -> str:
    """A game server's key, made by the command an operator runs, in the database the web uses (each test its
    own: the service-backed pass empties the database after each test)."""
    done = subprocess.run(
        [sys.executable, "manage.py", "create_game_server", secrets.token_hex(6), "--quiet-key"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1]


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


@contextlib.contextmanager
def _unfinished_post(port: int, path: str, sent: int, key: str = "") -> Iterator[tuple[bytes, socket.socket]]:
    """POST ``sent`` bytes of a chunked body to ``path`` and never end it; yields the answer and the socket."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n" + (f"Authorization: Api-Key {key}\r\n" if key else "") + "\r\n"
        )
        sock.sendall(head.encode())
        piece = b'{"games": [' + b" " * (64 * 1024 - 11)
        left = sent
        while left > 0:
            sock.sendall(_chunk(piece[:left]))
            left -= min(left, len(piece))
        answer = b""
        with contextlib.suppress(TimeoutError):
            while b"\r\n\r\n" not in answer or len(answer) < answer.find(b"\r\n\r\n") + 4 + _length(answer):
                part = sock.recv(65536)
                if not part:
                    break
                answer += part
        yield answer, sock


def _length(answer: bytes) -> int:
    for line in answer.split(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def _status(answer: bytes) -> int:
    assert answer, "no answer: the server waited for the rest of the body"
    return int(answer.split(b" ", 2)[1])


def _closed_by_server(sock: socket.socket) -> bool:
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        return sock.recv(1) == b""
    return False


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/v1/leaderboards/tokaido/", 405, "method_not_allowed"),  # a public GET path
        ("/api/v1/games/", 401, "missing_api_key"),  # anonymous, where a key is needed
        ("/api/v1/no-such-endpoint/", 404, "not_found"),
    ],
)
def test_an_anonymous_chunked_body_is_answered_without_being_read(web, path, status, code):
    port, _ = web
    with _unfinished_post(port, path, sent=128 * 1024) as (answer, sock):
        assert _status(answer) == status, answer[:300]
        head, _, body = answer.partition(b"\r\n\r\n")
        assert b"connection: close" in head.lower()
        assert json.loads(body)["error"]["code"] == code
        assert _closed_by_server(sock)  # the rest of the body is never read


def test_an_authenticated_chunked_body_is_read_only_to_the_endpoints_own_cap(web):
    """Past the single game's 256 KiB the answer is 413, while the body goes on; the batch cap (4 MiB) is not
    what is read to: 300 KiB sent, and the answer arrives."""
    port, key = web[0], _key(web[1])
    with _unfinished_post(port, "/api/v1/games/", sent=SINGLE_CAP + 44 * 1024, key=key) as (answer, sock):
        assert _status(answer) == 413, answer[:300]
        body = json.loads(answer.partition(b"\r\n\r\n")[2])
        assert body["error"]["code"] == "body_too_large" and f"{SINGLE_CAP} bytes" in body["error"]["message"]
        assert _closed_by_server(sock)


def test_a_complete_chunked_body_under_the_cap_still_works_and_keeps_the_connection(web):
    port, key = web[0], _key(web[1])
    game = json.dumps(
        {
            "table_id": "CH-1",
            "game": "tokaido",
            "players": [_seat("kim", "192.0.2.1", 60), _seat("lee", "192.0.2.2", 50)],
        }
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
        head = (
            "POST /api/v1/games/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Transfer-Encoding: chunked\r\nAuthorization: Api-Key {key}\r\n\r\n"
        ).encode()
        sock.sendall(head + _chunk(game[:20]) + _chunk(game[20:]) + b"0\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer) < answer.find(b"\r\n\r\n") + 4 + _length(answer):
            answer += sock.recv(65536)
        assert _status(answer) == 201, answer[:500]
        assert b"connection: close" not in answer.partition(b"\r\n\r\n")[0].lower()
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # the same connection, kept alive
        assert _status(sock.recv(65536)) == 200


def test_a_client_that_sent_its_whole_body_reads_the_refusal(web):
    """The connection lingers after the answer, discarding what is still arriving, so a client that sends all of
    a 512 KiB body before it reads reads the 405, not a reset."""
    port, _ = web
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
        sock.sendall(
            b"POST /api/v1/leaderboards/tokaido/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        for _ in range(8):
            sock.sendall(_chunk(b"x" * 64 * 1024))
        sock.sendall(b"0\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer) < answer.find(b"\r\n\r\n") + 4 + _length(answer):
            answer += sock.recv(65536)
        assert _status(answer) == 405
        assert _closed_by_server(sock)
