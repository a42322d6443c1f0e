"""Slow clients do not take the web process (issue 25, item 1; docs/security.md, slow clients).

The Procfile's own ``web`` line, in production mode, with one worker (``WEB_CONCURRENCY=1``: four threads, the
harshest of the shapes the issue measured, where five slow clients timed ``/healthz`` out five times in five).
Twenty connections each send a request line and then one header line every half second, never finishing their
headers; all the while a fresh client asks ``/healthz`` every tenth of a second and must have its answer within a
second, every time. Then a client that stalls mid-headers is closed by the server once its header time is up
(config/http_worker.py, ``HEADER_TIMEOUT``), so slow connections cannot pile up either.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time

import pytest

from tests.services.test_raw_addresses_nowhere import Web, _free_port, _production_env, processes

pytestmark = pytest.mark.django_db(transaction=True)

SLOW_CLIENTS = 20
SLOW_SECONDS = 6.0
HEALTHZ_BUDGET = 1.0
HEADER_TIMEOUT = 4.0  # the web's, for this test: short enough to watch it close a stalled client


def _slow_client(port: int, stop: threading.Event, opened: list[socket.socket]) -> None:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    opened.append(sock)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    line = 0
    while not stop.wait(0.5):
        line += 1
        try:
            sock.sendall(f"X-Slow-{line}: {'a' * 20}\r\n".encode())
        except OSError:
            return  # closed by the server: its header time is up


def _healthz_seconds(port: int) -> float:
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/healthz")
        response = conn.getresponse()
        response.read()
        assert response.status == 200
    finally:
        conn.close()
    return time.monotonic() - started


def test_twenty_slow_header_connections_leave_healthz_answering_within_a_second(tmp_path, redis_conn):
    port = _free_port()
    env = _production_env(tmp_path, port)
    env["ARENA_HEADER_TIMEOUT"] = str(SLOW_SECONDS + HEADER_TIMEOUT)  # the slow clients stay open throughout
    with processes(["web"], env, tmp_path):
        Web(port, "").wait_up(tmp_path / "web.log")
        stop, opened = threading.Event(), []
        slow = [threading.Thread(target=_slow_client, args=(port, stop, opened)) for _ in range(SLOW_CLIENTS)]
        for thread in slow:
            thread.start()
        try:
            time.sleep(1.0)  # every slow client has sent its request line and a header line
            assert len(opened) == SLOW_CLIENTS
            timings = []
            deadline = time.monotonic() + SLOW_SECONDS - 1.0
            while time.monotonic() < deadline:
                timings.append(_healthz_seconds(port))
                time.sleep(0.1)
            still_open = [s for s in opened if _is_open(s)]
        finally:
            stop.set()
            for thread in slow:
                thread.join()
            for sock in opened:
                sock.close()
    assert len(timings) >= 20
    assert max(timings) < HEALTHZ_BUDGET, sorted(timings)[-5:]
    assert len(still_open) == SLOW_CLIENTS  # they were being held the whole time, not dropped early


def test_a_client_that_stalls_in_its_headers_is_closed_when_its_time_is_up(tmp_path, redis_conn):
    port = _free_port()
    env = _production_env(tmp_path, port)
    env["ARENA_HEADER_TIMEOUT"] = str(HEADER_TIMEOUT)
    with processes(["web"], env, tmp_path):
        Web(port, "").wait_up(tmp_path / "web.log")
        with socket.create_connection(("127.0.0.1", port), timeout=HEADER_TIMEOUT + 5) as sock:
            started = time.monotonic()
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and nothing more
            assert sock.recv(1024) == b""  # closed, with no answer
            waited = time.monotonic() - started
    # Closed by the deadline (checked about once a second by the worker's loop), not before it.
    assert HEADER_TIMEOUT - 0.1 <= waited <= HEADER_TIMEOUT + 2.5, waited


def _is_open(sock: socket.socket) -> bool:
    """True while the server has not closed ``sock`` (a peek that would block means open and silent)."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        sock.setblocking(True)
