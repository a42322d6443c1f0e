"""SENTRY_DSN: an error reaches Sentry without a raw address or a key (docs/observability.md). The DSN points at
a local HTTP receiver standing in for Sentry; a real Django process (a subprocess configured from the
environment, as production is) serves a request whose view raises."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
KEY = "k3y-Zq8vNw2TfH5pLx0RsY7uJc4MbE1aGd6"
CLIENT = "198.51.100.77"
FORWARDED = "203.0.113.45"
PLAYER = "192.0.2.213"


def _decoded(body: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    if encoding == "br":
        import brotli

        return brotli.decompress(body)
    return body


def _receive(mode: list[str]) -> bytes:
    received: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            received.append(_decoded(body, self.headers.get("Content-Encoding", "")))
            received.append(str(self.headers).encode())
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        env = {
            **os.environ,
            "SENTRY_DSN": f"http://public@127.0.0.1:{server.server_address[1]}/1",
            "DEBUG": "false",
            "SECRET_KEY": "s" * 50,
            "IP_HASH_KEY": "h" * 50,
            "ALLOWED_HOSTS": "testserver",
            # Production redirects plain http to https; the probe comes as the TLS proxy forwards (https).
            "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto,https",
            "PYTHONPATH": str(ROOT),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PROBE_KEY": KEY,
            "PROBE_CLIENT": CLIENT,
            "PROBE_FORWARDED": FORWARDED,
            "PROBE_PLAYER": PLAYER,
        }
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
        probe = str(Path(__file__).with_name("sentry_probe.py"))
        run = subprocess.run([sys.executable, probe, *mode], env=env, cwd=ROOT, capture_output=True, timeout=120)
        assert run.returncode == 0, run.stderr.decode()[-3000:]
    finally:
        server.shutdown()
    return b"\n".join(received)


@pytest.mark.parametrize("secret", [KEY, CLIENT, FORWARDED, PLAYER])
def test_the_error_reaches_sentry_without_a_key_or_an_address(secret, _arena_mode):
    assert b"RuntimeError" in _arena_mode and b"the view broke" in _arena_mode
    assert b"/api/v1/games/" in _arena_mode  # the URL is kept: it says where
    assert secret.encode() not in _arena_mode


def test_with_personal_data_on_the_receiver_would_see_them():
    """The guard: the same request with sentry-sdk's personal data and bodies on carries the address and key."""
    got = _receive(["pii"])
    assert CLIENT.encode() in got and PLAYER.encode() in got and KEY.encode() in got


@pytest.fixture(scope="module")
def _arena_mode() -> bytes:
    return _receive([])
