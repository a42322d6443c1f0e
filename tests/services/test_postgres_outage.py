"""PostgreSQL stopped and started again under load (docs/observability.md#while-postgresql-is-down).

A PRIVATE PostgreSQL cluster on a free port (initdb + pg_ctl; the shared server is never stopped,
it only lends the suite's migrated template, tests/migrated.py) and a private
Redis serve the production shape: gunicorn (DEBUG off), a Celery worker and beat. Three clients post games
(single POSTs and batches) while the cluster is stopped for a few seconds and started again. Every answer must be
2xx, or 503 ``unavailable`` (``busy``) with Retry-After, always JSON; the client resends the same body after
Retry-After, as docs/api.md tells game servers to. While it is down, /readyz is 503 naming the database, /healthz
200, the panel a plain 503 page. After it returns, nothing is restarted: every game is rated, each exactly once.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import pytest
from django.db import connection

from tests import migrated
from tests.process_groups import groups_stop

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PG_BINS = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
TOKEN = "m" * 40
PANEL_PASSWORD = "outage-panel-password-0192"
OUTAGE_SECONDS = 6.0
CLIENTS = 3
RATED_TIMEOUT = 90.0

pytestmark = pytest.mark.skipif(
    not PG_BINS or not shutil.which("redis-server"), reason="needs PostgreSQL's server binaries and redis-server"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """A throwaway PostgreSQL cluster owned by the postgres user (initdb refuses to run as root)."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="arena-outage-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.root, user="postgres", group="postgres")

    def _run(self, *command: str) -> None:
        argv = [str(Path(PG_BINS[-1]) / command[0]), *command[1:]]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        subprocess.run(argv, check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off -c synchronous_commit=off -c max_connections=60"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, name: str = "arena") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"


class Processes:
    """The processes this test starts, each in its own group, stopped by their own ids at the end."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.running: list[subprocess.Popen] = []
        self.by_name: dict[str, subprocess.Popen] = {}

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - owned by the child
        process = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.running.append(process)
        self.by_name[name] = process
        return process

    def stop_all(self) -> None:
        groups_stop(reversed(self.running))

    def tail(self, name: str, size: int = 3000) -> str:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace")[-size:] if path.exists() else ""


@dataclass
class Answer:
    at: float
    status: int
    code: str | None
    retry_after: str | None
    json: bool


@dataclass
class Client:
    key: str
    base: str
    rnd: random.Random
    answers: list[Answer] = field(default_factory=list)
    game_ids: set[int] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)
    sends: int = 0

    def body(self) -> dict:
        names = self.rnd.sample([f"pl{n}" for n in range(24)], 3)
        scores = self.rnd.sample(range(0, 200, 10), 3)
        table = f"T-{self.key[:6]}-{self.sends}-{self.rnd.randrange(10**9)}"
        return {
            "table_id": table,
            "game": "wizard",
            "players": [
                {"player": name, "ip": f"2001:db8:{self.rnd.randrange(65536):x}::1", "score": score}
                for name, score in zip(names, scores, strict=True)
            ],
        }

    def run(self, stop: threading.Event) -> None:
        with httpx.Client(base_url=self.base, timeout=30.0, headers={"Authorization": f"Api-Key {self.key}"}) as http:
            while not stop.is_set():
                self.sends += 1
                if self.sends % 3 == 0:
                    self.send(http, "/api/v1/games/batch/", {"games": [self.body() for _ in range(3)]})
                else:
                    self.send(http, "/api/v1/games/", self.body())
                time.sleep(0.05)

    def send(self, http: httpx.Client, path: str, body: dict) -> None:
        """The same body until it is accepted, waiting Retry-After (at most 1 s here) after each 503."""
        for _ in range(200):
            try:
                response = http.post(path, json=body)
            except httpx.HTTPError as error:
                self.failures.append(f"{path}: {error!r}")
                return
            is_json = response.headers.get("content-type", "").startswith("application/json")
            payload = response.json() if is_json else None
            code = payload.get("error", {}).get("code") if isinstance(payload, dict) else None
            self.answers.append(
                Answer(time.monotonic(), response.status_code, code, response.headers.get("Retry-After"), is_json)
            )
            if 200 <= response.status_code < 300:
                results = (
                    payload["results"]
                    if path.endswith("batch/")
                    else [{"status_code": response.status_code, "body": payload}]
                )
                for result in results:
                    if result["status_code"] not in (200, 201):
                        self.failures.append(f"{path}: a game answered {result['status_code']}: {result['body']}")
                    else:
                        self.game_ids.add(result["body"]["id"])
                return
            if response.status_code == 503 and code in ("unavailable", "busy") and response.headers.get("Retry-After"):
                time.sleep(min(float(response.headers["Retry-After"]), 1.0))
                continue
            self.failures.append(f"{path}: {response.status_code} {response.text[:300]}")
            return
        self.failures.append(f"{path}: still refused after 200 sends")


@pytest.fixture
def shape(tmp_path) -> Iterator[dict]:
    """Private PostgreSQL and Redis, migrated; gunicorn, a worker and beat started; torn down by their ids."""
    cluster = Cluster()
    processes = Processes(tmp_path)
    redis_port = free_port()
    try:
        cluster.init()
        cluster.start()
        subprocess.run(
            [
                str(Path(PG_BINS[-1]) / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(cluster.port),
                "-U",
                "postgres",
                "arena",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        processes.start(
            "redis",
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            dict(os.environ),
        )
        (tmp_path / "prometheus").mkdir()
        (tmp_path / "var").mkdir()
        env = {
            **os.environ,
            "DATABASE_URL": cluster.url(),
            "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
            "DEBUG": "false",
            "SECRET_KEY": "outage-test-secret-key-" + "s" * 40,
            "IP_HASH_KEY": "outage-test-ip-hash-key-" + "h" * 40,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "ARENA_VAR_DIR": str(tmp_path / "var"),
            "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prometheus"),
            "METRICS_TOKEN": TOKEN,
            "LOG_FORMAT": "json",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PYTHONPATH": str(ROOT),
            # Plain HTTP on loopback, and a panel login without an authenticator: this test is about the
            # database, the admin door has its own (tests/db/moderation/test_admin_door.py).
            "SECURE_SSL_REDIRECT": "false",
            "ADMIN_REQUIRE_OTP": "false",
        }
        python = str(BIN / "python")
        # The migrated schema, restored from the suite's template (tests/migrated.py) rather than migrated again.
        migrated.restore(migrated.dump(migrated.url_of(connection.settings_dict)), env["DATABASE_URL"])
        keys = [
            subprocess.run(
                [python, "manage.py", "create_game_server", f"gs-{n}", "--quiet-key"],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
                timeout=120,
                text=True,
            ).stdout.strip()
            for n in range(CLIENTS)
        ]
        subprocess.run(
            [python, "manage.py", "createsuperuser", "--no-input", "--username", "root", "--email", "root@example.org"],
            cwd=ROOT,
            env={**env, "DJANGO_SUPERUSER_PASSWORD": PANEL_PASSWORD},
            check=True,
            capture_output=True,
            timeout=120,
        )
        web_port = free_port()
        processes.start(
            "gunicorn",
            [
                str(BIN / "gunicorn"),
                "config.wsgi",
                "-b",
                f"127.0.0.1:{web_port}",
                "-w",
                "2",
                "--worker-class",
                "gthread",
                "--threads",
                "4",
                "--graceful-timeout",
                "5",
            ],
            env,
        )
        processes.start(
            "worker",
            [
                str(BIN / "celery"),
                "-A",
                "config",
                "worker",
                "-Q",
                "elo,trueskill,arena,detection,matchmaking",
                "-c",
                "2",
                "-n",
                "outage@%h",
                "--without-mingle",
                "--without-gossip",
            ],
            env,
        )
        processes.start("beat", [str(BIN / "celery"), "-A", "config", "beat", "-s", str(tmp_path / "beat")], env)
        base = f"http://127.0.0.1:{web_port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            time.sleep(0.3)
        else:
            raise AssertionError("gunicorn never became ready:\n" + processes.tail("gunicorn"))
        yield {"cluster": cluster, "processes": processes, "keys": keys, "base": base}
    finally:
        processes.stop_all()
        cluster.destroy()


def _panel_login(base: str) -> httpx.Client:
    """A moderator's browser session (its next page reads the session and the user from the database). Production's
    cookies are Secure, which httpx keeps off plain http: they are carried by hand, as a browser on https would."""
    browser = httpx.Client(base_url=base, timeout=10)
    form = browser.get("/admin/login/")
    jar = dict(form.cookies.items())
    token = form.text.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    answer = browser.post(
        "/admin/login/?next=/admin/",
        data={"username": "root", "password": PANEL_PASSWORD, "csrfmiddlewaretoken": token, "next": "/admin/"},
        headers={"Cookie": "; ".join(f"{k}={v}" for k, v in jar.items())},
    )
    jar.update(answer.cookies.items())
    browser.headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in jar.items())
    assert answer.status_code == 302 and answer.headers["location"] == "/admin/", answer.text[:500]
    return browser


def _probe(base: str, browser: httpx.Client) -> dict[str, object]:
    """What an operator, a moderator and a load balancer see at this moment."""
    ready = httpx.get(f"{base}/readyz", timeout=10)
    admin = browser.get("/admin/", follow_redirects=False)
    scrape = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    public = httpx.get(f"{base}/api/v1/players/pl1/", timeout=10)
    return {
        "healthz": httpx.get(f"{base}/healthz", timeout=10).status_code,
        "readyz": ready.status_code,
        "readyz_body": ready.json(),
        "admin": admin.status_code,
        "admin_type": admin.headers.get("content-type"),
        "admin_text": admin.text[:200],
        "metrics": scrape.status_code,
        "database_up": "arena_metrics_database_up 0.0" not in scrape.text,
        "public": public.status_code,
        "public_body": public.text[:300],
        "public_retry_after": public.headers.get("Retry-After"),
    }


def _counts(cluster: Cluster) -> dict[str, int]:
    with psycopg.connect(cluster.url(), connect_timeout=5) as conn:
        row = conn.execute("""
            SELECT (SELECT count(*) FROM arena_game),
                   (SELECT count(*) FROM arena_game WHERE status = 'rated'),
                   (SELECT count(*) FROM arena_game g JOIN ratings_ratingstage t
                    ON t.title = g.title AND t.stage = 'trueskill' WHERE g.rating_seq <= t.last_seq),
                   (SELECT count(*) FROM arena_seat s JOIN arena_game g ON g.id = s.game_id),
                   (SELECT count(*) FROM ratings_ratingchange WHERE kind = 'game'),
                   (SELECT count(*) FROM (SELECT game_id, player_id FROM ratings_ratingchange WHERE kind = 'game'
                                          GROUP BY game_id, player_id HAVING count(*) > 1) AS doubled)
        """).fetchone()
    return dict(zip(("games", "rated", "trueskill", "seats", "changes", "doubled"), row, strict=True))


def _scrape(base: str) -> dict[str, float]:
    text = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10).text
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, number = line.rpartition(" ")
            out[name] = float(number)
    return out


def test_a_postgres_outage_is_503_unavailable_and_heals_without_a_restart(shape):
    cluster, base = shape["cluster"], shape["base"]
    clients = [Client(key, base, random.Random(n)) for n, key in enumerate(shape["keys"])]
    browser = _panel_login(base)
    assert browser.get("/admin/").status_code == 200
    stop = threading.Event()
    threads = [threading.Thread(target=client.run, args=(stop,), daemon=True) for client in clients]
    for thread in threads:
        thread.start()
    time.sleep(4.0)  # traffic as usual first

    stopped_at = time.monotonic()
    cluster.stop("fast")  # terminates every connection (57P01), then refuses new ones
    time.sleep(OUTAGE_SECONDS / 2)
    during = _probe(base, browser)
    time.sleep(max(OUTAGE_SECONDS - (time.monotonic() - stopped_at), 0))
    cluster.start()
    back_at = time.monotonic()
    time.sleep(8.0)  # traffic after the return: new games must be rated by the same, unrestarted workers
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    posted_until = time.monotonic()

    # Every answer: 2xx, or 503 unavailable/busy with Retry-After; always JSON.
    answers = [answer for client in clients for answer in client.answers]
    failures = [failure for client in clients for failure in client.failures]
    assert failures == [], failures[:10]
    seen = Counter((a.status, a.code) for a in answers)
    assert set(seen) <= {(200, None), (201, None), (503, "unavailable"), (503, "busy")}, seen
    assert all(a.json for a in answers)
    assert all(a.retry_after for a in answers if a.status == 503)
    assert seen[(503, "unavailable")] > 0, f"no request met the outage: {seen}"

    assert during["healthz"] == 200
    assert during["readyz"] == 503 and during["readyz_body"]["unavailable"] == ["database"], during
    assert during["admin"] == 503 and during["admin_type"].startswith("text/plain"), during
    assert during["public"] == 503 and '"unavailable"' in during["public_body"] and during["public_retry_after"]
    assert during["metrics"] == 200 and not during["database_up"], during

    first_ok_after = min((a.at for a in answers if a.at > back_at and a.status < 300), default=None)
    assert first_ok_after is not None, "nothing was accepted after PostgreSQL returned"

    accepted = set().union(*(client.game_ids for client in clients))
    deadline = time.monotonic() + RATED_TIMEOUT
    counts = _counts(cluster)
    while (counts["rated"] < len(accepted) or counts["trueskill"] < len(accepted)) and time.monotonic() < deadline:
        time.sleep(0.25)
        counts = _counts(cluster)
    all_rated_at = time.monotonic()
    processes = shape["processes"]
    assert counts["games"] == len(accepted), counts  # nothing doubled by the resends, nothing lost
    assert counts["rated"] == counts["trueskill"] == len(accepted), (counts, processes.tail("worker"))
    assert counts["changes"] == counts["seats"] and counts["doubled"] == 0, counts  # each seat rated once

    assert browser.get("/admin/").status_code == 200  # the same session, once the database is back

    # Beat and the worker of its queue go on by themselves; the web's scrape sums the worker's batches.
    time.sleep(2.0)
    figures = _scrape(base)
    assert time.time() - figures["arena_beat_last_tick_timestamp_seconds"] < 5, processes.tail("beat")
    assert figures["arena_metrics_database_up"] == 1
    assert figures["arena_rating_batch_games_sum"] == len(accepted)
    assert all(v == 0 for k, v in figures.items() if k.startswith("arena_rating_pending_games"))
    for name in ("gunicorn", "worker", "beat"):  # the same processes throughout: none was restarted
        assert processes.by_name[name].poll() is None, f"{name} exited:\n{processes.tail(name)}"

    report = {
        "answers": {
            f"{status} {code or ''}".strip(): n for (status, code), n in sorted(seen.items(), key=lambda kv: str(kv[0]))
        },
        "games_accepted": len(accepted),
        "outage_seconds": round(back_at - stopped_at, 1),
        "first_2xx_after_return_s": round(first_ok_after - back_at, 2),
        "all_rated_after_return_s": round(all_rated_at - back_at, 2),
        "all_rated_after_last_post_s": round(all_rated_at - posted_until, 2),
        "during": {k: during[k] for k in ("healthz", "readyz", "admin", "public", "metrics")},
    }
    print("\nOUTAGE REPLAY " + json.dumps(report))
