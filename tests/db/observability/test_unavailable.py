"""A lost database connection is a 503 ``unavailable`` with Retry-After, JSON for the API, a plain page for the
panel, never a 500 (docs/api.md, docs/observability.md#while-postgresql-is-down).

The failures here are real psycopg errors (a connection to a closed local port, a server's "starting up"
SQLSTATE) raised where the database would raise them; the whole outage against a real PostgreSQL that is
stopped and started is tests/services/test_postgres_outage.py.
"""

from __future__ import annotations

import socket
from contextlib import contextmanager

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import DatabaseError, IntegrityError, InterfaceError, OperationalError, connection
from django.test import Client
from rest_framework.test import APIClient

from infra.db import connection_lost

pytestmark = pytest.mark.django_db(transaction=True)

# The fake outage is Django's execute wrapper; on PostgreSQL the per-request key lookup runs through a raw
# server-binding cursor (infra/db.py's fetch_one), which that wrapper never sees. The real outage on PostgreSQL,
# with the database actually stopped, is tests/services/test_postgres_outage.py.
_ORM_OUTAGE_ONLY = pytest.mark.skipif(
    settings.IS_POSTGRES, reason="the raw key lookup bypasses the fake outage; tests/services/test_postgres_outage.py"
)


def _refused() -> OperationalError:
    """What Django raises when PostgreSQL is down: its OperationalError over psycopg's 'connection refused'."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound, never listening: the connection is refused
        try:
            psycopg.connect(host="127.0.0.1", port=port, user="x", dbname="x", connect_timeout=2)
        except psycopg.OperationalError as refused:
            error = OperationalError(str(refused))
            error.__cause__ = refused
            return error
    raise AssertionError("the connection was not refused")


class _StartingUp(psycopg.errors.CannotConnectNow):
    pass


def _wrapped(cause: Exception, cls: type[DatabaseError] = OperationalError) -> DatabaseError:
    error = cls(str(cause))
    error.__cause__ = cause
    return error


def test_which_failures_are_a_lost_connection():
    assert connection_lost(_refused())
    assert connection_lost(_wrapped(psycopg.errors.CannotConnectNow("the database system is starting up")))
    assert connection_lost(_wrapped(psycopg.errors.AdminShutdown("terminating connection")))
    assert connection_lost(InterfaceError("connection already closed"))
    # A deadlock is busy (retried, then 503 busy); a refused statement is the request's or our fault.
    assert not connection_lost(_wrapped(psycopg.errors.DeadlockDetected("deadlock detected")))
    assert not connection_lost(_wrapped(psycopg.errors.UndefinedTable("no such table"), cls=DatabaseError))
    assert not connection_lost(_wrapped(psycopg.errors.QueryCanceled("statement timeout")))
    assert not connection_lost(IntegrityError("duplicate key"))
    import sqlite3

    assert not connection_lost(_wrapped(sqlite3.OperationalError("no such table: x")))


@contextmanager
def _database_down():
    """Every statement fails as on a database that went away (Django's execute wrapper: each query of this
    thread, the test client's requests included, raises the refused connection)."""
    error = _refused()

    def down(execute, sql, params, many, context):
        raise error

    with connection.execute_wrapper(down):
        yield


@pytest.fixture
def outage():
    with _database_down():
        yield


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/v1/games/"),
        ("post", "/api/v1/games/batch/"),
        ("get", "/api/v1/games/7/"),
        ("get", "/api/v1/players/alice/"),
        ("get", "/api/v1/players/alice/history/wizard/"),
        ("get", "/api/v1/leaderboards/wizard/"),
        ("post", "/api/v1/matchmaking/tickets/"),
    ],
)
@_ORM_OUTAGE_ONLY
def test_every_api_request_answers_503_unavailable(outage, method, path):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Api-Key whatever")
    answer = getattr(client, method)(path, {}, format="json")
    assert answer.status_code == 503
    assert answer["Content-Type"] == "application/json"
    assert answer["Retry-After"] == "5"
    assert answer.json()["error"]["code"] == "unavailable"


@pytest.mark.parametrize("path", ["/admin/", "/admin/arena/game/", "/admin/login/"])
@pytest.mark.parametrize("debug", [True, False])
def test_the_panel_shows_a_plain_503_page(settings, path, debug):
    user = User.objects.create_superuser("root", password="pw-for-tests-only")
    client = Client()
    client.force_login(user)
    settings.DEBUG = debug
    with _database_down():
        answer = client.get(path)
    assert answer.status_code == 503
    assert answer["Content-Type"].startswith("text/plain") and answer["Retry-After"] == "5"
    assert b"database is not answering" in answer.content and b"<html" not in answer.content.lower()


@pytest.mark.parametrize(
    ("path", "kind"), [("/admin/login/", "text/plain"), ("/api/v1/leaderboards/wizard/", "application/json")]
)
def test_a_failure_inside_a_middleware_is_still_503_not_500(monkeypatch, settings, path, kind):
    """Past every view's handler (a header set on the way out, say), Django's handler500 tells it apart."""
    settings.DEBUG = False
    error = _refused()

    def down(self, request, response):
        raise error

    # X-Frame-Options' layer answers on every path (the session's runs under /admin/ only: admin_layers.py).
    monkeypatch.setattr("django.middleware.clickjacking.XFrameOptionsMiddleware.process_response", down)
    answer = Client(raise_request_exception=False).get(path)
    assert answer.status_code == 503
    assert answer["Retry-After"] == "5" and answer["Content-Type"].startswith(kind)


@_ORM_OUTAGE_ONLY
def test_the_request_line_says_the_database_was_unreachable(outage, lines):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Api-Key whatever")
    assert client.post("/api/v1/games/", {}, format="json").status_code == 503
    _, records = lines()
    (line,) = [r for r in records if r["event"] == "request_finished"]
    assert line["code"] == 503 and line["unavailable"] == "OperationalError" and line["level"] == "error"
    assert [r["event"] for r in records] == ["request_finished"]  # one line, no separate warning


def test_healthz_stays_200_and_readyz_names_the_database(outage):
    assert Client().get("/healthz").status_code == 200
    answer = Client().get("/readyz")
    assert answer.status_code == 503
    body = answer.json()
    assert body["unavailable"] == ["database"] and body["checks"]["database"] == "error: OperationalError"
