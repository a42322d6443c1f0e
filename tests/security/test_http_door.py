"""Issue 25 §1.7, §1.9 and §2: what the HTTP door refuses before any view, the headers on every answer, and what
the logs keep of a request."""

from __future__ import annotations

import logging

import pytest
from django.test import Client

from tests.security.conftest import LOGIN

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path", ["/admin/login/", "/api/docs/", "/api/v1/leaderboards/tokaido/", "/healthz", "/api/v1/no-such-endpoint/"]
)
def test_every_answer_carries_csp_and_permissions_policy(path):
    response = Client().get(path)
    policy = response["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "'unsafe-inline'" not in policy.split("script-src")[-1][:40]
    assert "camera=()" in response["Permissions-Policy"]


def test_pages_allow_no_inline_script_and_json_allows_nothing():
    page = Client().get("/admin/login/")["Content-Security-Policy"]
    assert "script-src 'self'" in page and "object-src 'none'" in page
    assert Client().get("/healthz")["Content-Security-Policy"].startswith("default-src 'none'")


def test_swagger_ui_has_no_inline_script():
    html = Client().get("/api/docs/").content.decode()
    assert "<script>" not in html and "?script=" in html.replace("&amp;", "&")


def test_a_login_form_over_the_cap_is_413_before_it_is_read():
    body = "username=a&password=" + "x" * (300 * 1024)
    response = Client().generic("POST", LOGIN, body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 413


def test_a_chunked_admin_form_is_411():
    response = Client().generic(
        "POST", LOGIN, b"", content_type="application/x-www-form-urlencoded", HTTP_TRANSFER_ENCODING="chunked"
    )
    assert response.status_code == 411


def test_more_than_1000_query_parameters_answer_the_json_error_shape():
    query = "&".join(f"p{i}=1" for i in range(1001))
    response = Client().get(f"/api/v1/leaderboards/tokaido/?{query}")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "too_many_parameters"


def test_an_unsafe_next_lands_on_the_admin_index(root):
    from django.conf import settings

    assert settings.LOGIN_REDIRECT_URL == "/admin/"


def test_a_key_in_the_query_string_never_reaches_the_request_line(caplog):
    caplog.set_level(logging.INFO)
    Client().get("/api/v1/games/1/?api_key=sk-very-secret-value")
    lines = [record.getMessage() for record in caplog.records] + [str(record.msg) for record in caplog.records]
    assert any("request_finished" in line for line in lines)
    assert not any("sk-very-secret-value" in line for line in lines)


def test_a_refused_host_is_one_warning_without_a_traceback(caplog):
    caplog.set_level(logging.INFO)
    response = Client(raise_request_exception=False).get("/healthz", HTTP_HOST="evil.example.net")
    assert response.status_code == 400
    refused = [r for r in caplog.records if r.name == "django.security.DisallowedHost"]
    assert refused and all(r.levelno == logging.WARNING and r.exc_info is None for r in refused)
