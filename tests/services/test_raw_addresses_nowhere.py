"""Raw addresses nowhere, proved (docs/security.md, what is stored and what never is; docs/moderation.md).

Arena's production shape, started from the Procfile's own commands (gunicorn and every worker, and beat), in
production mode (DEBUG=false, private keys) on the test PostgreSQL database and the test Redis db, receives games,
a batch, tickets with parties, preferences, reports, public reads and an admin login attempt, all carrying known
client addresses (IPv4, IPv6, IPv4-mapped: in the bodies, and as the connecting address through
``X-Forwarded-For`` with ``NUM_PROXIES=1``) and device ids. Then every raw value is searched, in every textual
form it could take (dotted, compressed and expanded IPv6, the /64 prefix, hex of the packed bytes, the integer;
base64 inside Celery's messages decoded), in a ``pg_dump`` of the database, in every Redis key and value (taken
twice: with the task messages still queued, and after the workers drained them), and in the web and worker
logs. None is found. The search does not depend on the logs' format: it reads them as text.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import http.client
import ipaddress
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from arena.models import SCOPES, Game
from arena.servers import game_server_create
from matchmaking.models import Ticket
from tests.process_groups import groups_stop
from tests.services.workers import ROOT, worker_env

pytestmark = pytest.mark.django_db(transaction=True)

# Known values, each used once: in bodies, in X-Forwarded-For, and as device ids.
BODY_V4 = ["203.0.113.77", "198.51.100.23", "192.0.2.131", "203.0.113.201"]
BODY_V6 = ["2001:db8:85a3::8a2e:370:7334", "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff"]
BODY_MAPPED = "::ffff:192.0.2.44"
FORWARDED_V4 = ["198.18.7.91", "100.64.33.17"]
FORWARDED_V6 = ["2001:db8:beef:1::42"]
DEVICES = ["fp-secdoor-7f3a9c2e51", "fp-secdoor-0d1e2f3a4b"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _procfile() -> dict[str, str]:
    entries = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, command = line.partition(":")
            entries[name.strip()] = command.strip()
    return entries


@contextlib.contextmanager
def processes(names: list[str], env: dict[str, str], logs: Path) -> Iterator[None]:
    """The Procfile's commands for ``names``, verbatim (bash expands their ${...}), each logging to a file."""
    commands = _procfile()
    started = []
    try:
        for name in names:
            log = open(logs / f"{name}.log", "ab")  # noqa: SIM115 - owned by the child
            line = commands[name] if commands[name].startswith("exec ") else f"exec {commands[name]}"
            started.append(
                subprocess.Popen(
                    ["bash", "-c", line],
                    cwd=ROOT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        yield
    finally:
        groups_stop(started)


class Web:
    """HTTP over a real socket to gunicorn, as the proxy in front of it would send it."""

    def __init__(self, port: int, key: str) -> None:
        self.port, self.key = port, key

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        forwarded: str | None = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> tuple[int, bytes, dict]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = dict(headers or {})
        if body is not None:
            raw = json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        if self.key and path.startswith("/api/v1/") and "Authorization" not in sent:
            sent["Authorization"] = f"Api-Key {self.key}"
        if forwarded:
            sent["X-Forwarded-For"] = forwarded
        conn.request(method, path, body=raw, headers=sent)
        response = conn.getresponse()
        data = response.read()
        conn.close()
        return response.status, data, dict(response.getheaders())

    def wait_up(self, log: Path, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if self.request("GET", "/healthz")[0] == 200:
                    return
            time.sleep(0.3)
        raise AssertionError("gunicorn did not come up:\n" + log.read_text(errors="replace")[-3000:])


def _forms(raw: str) -> list[re.Pattern]:
    """Every textual form of a raw value, as a pattern that does not match inside a longer number or hex run."""
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        texts = [re.escape(raw), re.escape(raw.encode().hex())]
        return [re.compile(t, re.IGNORECASE) for t in texts]
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return [*_forms(str(address.ipv4_mapped)), re.compile(re.escape(raw), re.IGNORECASE)]
    patterns = []
    if isinstance(address, ipaddress.IPv4Address):
        patterns.append(rf"(?<![0-9.]){re.escape(str(address))}(?![0-9])")
        patterns.append(rf"(?<![0-9]){int(address)}(?![0-9])")
        patterns.append(rf"(?<![0-9a-f]){address.packed.hex()}(?![0-9a-f])")
    else:
        network = ipaddress.IPv6Network((address, 64), strict=False)
        prefix_groups = address.exploded.split(":")[:4]
        patterns += [
            rf"(?<![0-9a-f]){re.escape(text)}(?![0-9a-f])"
            for text in (
                str(address),
                address.exploded,
                ":".join(prefix_groups),
                ":".join(g.lstrip("0") or "0" for g in prefix_groups),
                str(network.network_address),
            )
        ]
        patterns.append(rf"(?<![0-9a-f]){address.packed.hex()}(?![0-9a-f])")
        patterns.append(rf"(?<![0-9a-f]){address.packed[:8].hex()}")  # the /64's bytes, in hex
    return [re.compile(p, re.IGNORECASE) for p in patterns]


NEEDLES = {raw: _forms(raw) for raw in [*BODY_V4, *BODY_V6, BODY_MAPPED, *FORWARDED_V4, *FORWARDED_V6, *DEVICES]}


def _decoded(text: str) -> Iterator[str]:
    """The text and whatever base64 it carries (Celery's message bodies), decoded once."""
    yield text
    for candidate in re.findall(r"[A-Za-z0-9+/=_-]{16,}", text):
        with contextlib.suppress(binascii.Error, ValueError):
            yield base64.b64decode(
                candidate + "=" * (-len(candidate) % 4),
                altchars=b"-_" if ("-" in candidate or "_" in candidate) else None,
            ).decode("utf-8", "replace")


def _found(where: str, text: str) -> list[str]:
    hits = []
    for piece in _decoded(text):
        for raw, patterns in NEEDLES.items():
            for pattern in patterns:
                match = pattern.search(piece)
                if match:
                    start = max(match.start() - 60, 0)
                    hits.append(f"{where}: {raw!r} as {match.group(0)!r} in ...{piece[start : match.end() + 60]!r}")
    return hits


def _redis_text(client) -> str:
    parts = []
    for key in client.scan_iter(count=1000):
        kind = client.type(key)
        parts.append(repr(key))
        if kind == b"string":
            parts.append(repr(client.get(key)))
        elif kind == b"list":
            parts.extend(repr(v) for v in client.lrange(key, 0, -1))
        elif kind == b"hash":
            parts.extend(repr(kv) for kv in client.hgetall(key).items())
        elif kind == b"set":
            parts.extend(repr(v) for v in client.smembers(key))
        elif kind == b"zset":
            parts.extend(repr(v) for v in client.zrange(key, 0, -1, withscores=True))
        elif kind == b"stream":
            parts.extend(repr(v) for v in client.xrange(key))
    return "\n".join(parts)


def _unescaped(text: str) -> str:
    """Redis values read back as Python reprs: their bytes as text again, so JSON inside is searchable."""
    return text.encode().decode("unicode_escape", "replace")


def _seat(handle: str, ip: str, score: int, device: str | None = None) -> dict:
    seat = {"player": handle, "ip": ip, "score": score, "achievements": 0}
    if device:
        seat["device"] = device
    return seat


def _wait(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def _production_env(tmp_path: Path, port: int) -> dict[str, str]:
    return worker_env(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        IP_HASH_KEY=secrets.token_urlsafe(32),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",
        NUM_PROXIES="1",
        REDIS_URL=os.environ["REDIS_URL"],
        ARENA_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
        ARENA_VAR_DIR=str(tmp_path),
        LOG_LEVEL="INFO",
        # The Procfile names its programs bare, as a deployment's PATH finds them: here, this virtualenv's.
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )


def test_no_raw_address_or_device_id_in_the_database_redis_or_the_logs(tmp_path, redis_conn):
    issued = game_server_create(name="addresses", scopes=SCOPES)
    port = _free_port()
    env = _production_env(tmp_path, port)
    web = Web(port, issued.key)
    v4, v6, fwd4, fwd6 = BODY_V4, BODY_V6, FORWARDED_V4, FORWARDED_V6
    with processes(["web"], env, tmp_path):
        web.wait_up(tmp_path / "web.log")
        # Games, one at a time: IPv4, IPv6 and IPv4-mapped seats, devices; connecting through the proxy.
        for index in range(6):
            body = {
                "table_id": f"A-{index}",
                "game": "tokaido",
                "players": [
                    _seat("alice", v4[0], 60, DEVICES[0]),
                    _seat("bob", v6[0], 50, DEVICES[1]),
                    _seat("carol", BODY_MAPPED, 40),
                    _seat("dave", v4[1], 30),
                ],
            }
            status, data, _ = web.request("POST", "/api/v1/games/", body, forwarded=fwd4[index % 2])
            assert status == 201, data
        batch = {
            "games": [
                {
                    "table_id": f"B-{i}",
                    "game": "tokaido",
                    "players": [_seat("erin", v4[2], 60), _seat("frank", v6[1], 50, DEVICES[0])],
                }
                for i in range(3)
            ]
        }
        status, data, _ = web.request("POST", "/api/v1/games/batch/", batch, forwarded=fwd6[0])
        assert status == 200 and [r["status_code"] for r in json.loads(data)["results"]] == [201, 201, 201]
        # Tickets, alone and with a party (each seat with its address): four players, Tokaido's recommended
        # table, formed by the first pass.
        tickets = [
            {"player": "gina", "ip": v4[3], "game": "tokaido"},
            {"player": "hank", "ip": v6[0], "game": "tokaido"},
            {
                "player": "ivy",
                "ip": v4[0],
                "game": "tokaido",
                "party": [{"player": "jack", "ip": BODY_MAPPED}],
                "request_id": "party-1",
            },
        ]
        for index, ticket in enumerate(tickets):
            status, data, _ = web.request(
                "POST", "/api/v1/matchmaking/tickets/", ticket, forwarded=[*fwd4, *fwd6][index]
            )
            assert status == 201, data
        status, data, _ = web.request(
            "PUT",
            "/api/v1/players/alice/preferences/",
            {"refuse_same_ip": True, "blocked": ["mallory"]},
            forwarded=fwd6[0],
        )
        assert status == 200, data
        report = {"reporter": "alice", "accused": ["bob"], "reason": "other", "description": "rude"}
        status, data, _ = web.request("POST", "/api/v1/reports/", report, forwarded=fwd4[0])
        assert status == 201, data
        # Public reads, from IPv4 and IPv6 clients (the throttle's cache keys).
        for forwarded in (*fwd4, *fwd6):
            for path in (
                "/api/v1/players/alice/",
                "/api/v1/players/alice/history/tokaido/",
                "/api/v1/leaderboards/tokaido/",
            ):
                assert web.request("GET", path, forwarded=forwarded)[0] == 200
        # A failed admin login through the proxy (django-axes' records).
        status, page, headers = web.request("GET", "/admin/login/", forwarded=fwd4[1])
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
        cookie = re.search(r"csrftoken=([^;]+)", headers.get("Set-Cookie", "")).group(1)
        form = urllib.parse.urlencode({"csrfmiddlewaretoken": token, "username": "nobody", "password": "wrong!"})
        status, _, _ = web.request(
            "POST",
            "/admin/login/",
            raw=form.encode(),
            forwarded=fwd6[0],
            headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": f"csrftoken={cookie}"},
        )
        assert status == 200

        # The task messages are still queued (no worker yet): Redis is searched with them in it.
        queued = _redis_text(redis_conn)
        assert "rate_elo" in queued or "ratings.tasks" in _unescaped(queued)

        with processes(["elo", "trueskill", "matchmaking", "pushes", "detection", "beat"], env, tmp_path):
            _wait(lambda: not Game.objects.filter(status=Game.Status.PENDING).exists(), 180, "the games rated")
            _wait(lambda: not Ticket.objects.filter(status=Ticket.Status.WAITING).exists(), 120, "the tickets matched")
            # The queues drained (beat keeps adding matchmaking passes; they go as fast as they come).
            _wait(
                lambda: sum(redis_conn.llen(q) for q in ("elo", "arena", "trueskill", "detection")) == 0,
                60,
                "the queues drained",
            )
            assert web.request("GET", "/api/v1/players/erin/")[0] == 200
            drained = _redis_text(redis_conn)

    assert Game.objects.filter(status=Game.Status.RATED).count() == 9
    assert set(Ticket.objects.values_list("status", flat=True)) == {Ticket.Status.MATCHED}
    db = connection.settings_dict
    dump = subprocess.run(
        [
            "pg_dump",
            "-h",
            db["HOST"] or "127.0.0.1",
            "-p",
            str(db["PORT"] or 5432),
            "-U",
            db["USER"],
            "--no-owner",
            db["NAME"],
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""},
    ).stdout
    assert "arena_seat" in dump and "matchmaking_ticketseat" in dump and "axes_accessattempt" in dump
    logs = {path.name: path.read_text(errors="replace") for path in sorted(tmp_path.glob("*.log"))}
    assert set(logs) == {
        "web.log",
        "elo.log",
        "trueskill.log",
        "matchmaking.log",
        "pushes.log",
        "detection.log",
        "beat.log",
    }

    hits = _found("pg_dump", dump)
    for name, text in (("redis (queued)", queued), ("redis (drained)", drained)):
        hits += _found(name, text) + _found(name, _unescaped(text))
    for name, text in logs.items():
        hits += _found(name, text)
    assert hits == [], "\n".join(hits[:20])


def test_the_search_finds_a_raw_value_in_every_form_it_looks_for():
    """The needle patterns catch each form (so an empty result above means something), and do not fire on a
    neighbouring value."""
    assert _found("x", "seen from 203.0.113.77 today")
    assert _found("x", "0xcb00714d")  # 203.0.113.77 packed
    assert _found("x", "int 3405803853")
    assert not _found("x", "203.0.113.7 and 203.0.113.770")
    assert _found("x", "2001:0db8:85a3:0000:0000:8a2e:0370:7334")
    assert _found("x", "net 2001:db8:85a3::/64")
    assert _found("x", "bytes 20010db885a30000 ...")
    assert _found("x", "[::ffff:192.0.2.44]") and _found("x", "192.0.2.44")
    assert _found("x", "device fp-secdoor-7f3a9c2e51")
    assert _found("x", ":1:throttle:public:2001:db8:beef:1::42:60:1")  # after a colon, as in a cache key
    hidden = base64.b64encode(json.dumps({"ip": "198.18.7.91"}).encode()).decode()
    assert _found("x", f'{{"body": "{hidden}"}}')


def _chunked_post(port: int, key: str, path: str, body: bytes) -> tuple[int, bytes]:
    """A POST with ``Transfer-Encoding: chunked`` and no Content-Length, in 1 KiB chunks, over a real socket."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    chunks = (body[i : i + 1024] for i in range(0, len(body), 1024))
    conn.request(
        "POST",
        path,
        body=chunks,
        encode_chunked=True,
        headers={"Authorization": f"Api-Key {key}", "Content-Type": "application/json", "Transfer-Encoding": "chunked"},
    )
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def test_gunicorn_hands_chunked_bodies_to_the_cap(tmp_path, redis_conn):
    """docs/security.md, the limits: a chunked body, which has no Content-Length, meets the same caps as any."""
    issued = game_server_create(name="chunked")
    port = _free_port()
    env = {**_production_env(tmp_path, port), "API_MAX_BODY_BYTES": "4000", "API_MAX_BATCH_BODY_BYTES": "8000"}
    game = {
        "table_id": "C-1",
        "game": "tokaido",
        "players": [_seat("kim", "2001:db8:c::1", 60), _seat("lee", "2001:db8:d::1", 50)],
    }
    small = json.dumps(game).encode()
    with processes(["web"], env, tmp_path):
        Web(port, issued.key).wait_up(tmp_path / "web.log")
        status, data = _chunked_post(port, issued.key, "/api/v1/games/", small + b" " * (3000 - len(small)))
        assert status == 201, data
        status, data = _chunked_post(port, issued.key, "/api/v1/games/", small + b" " * 5000)
        assert status == 413 and json.loads(data)["error"]["code"] == "body_too_large"
        status, data = _chunked_post(port, issued.key, "/api/v1/games/batch/", b'{"games": []}' + b" " * 20000)
        assert status == 413 and json.loads(data)["error"]["code"] == "body_too_large"
    assert list(Game.objects.values_list("table_id", flat=True)) == ["C-1"]
