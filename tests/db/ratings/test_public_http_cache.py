"""The public reads behind a CDN and in a browser (issue 19 #9): Cache-Control, ETag and 304, CORS for the
public reads only, never for a key-authenticated endpoint."""

from __future__ import annotations

import pytest
from django.test import override_settings

from tests.db.leaderboards.helpers import rate

pytestmark = pytest.mark.django_db
SITE = "https://boardgames.example"
PUBLIC = ["/api/v1/players/alice/", "/api/v1/players/alice/history/wizard/", "/api/v1/leaderboards/wizard/"]


@pytest.fixture
def alice(db):
    return rate("alice", 1530, games=5, days_ago=1)


@pytest.mark.parametrize(("url", "max_age", "swr"), [(PUBLIC[0], 5, 30), (PUBLIC[1], 10, 60), (PUBLIC[2], 5, 30)])
def test_each_public_read_is_cacheable_briefly_with_an_etag(anon, alice, url, max_age, swr):
    response = anon.get(url)
    assert response.status_code == 200
    directives = {d.strip() for d in response["Cache-Control"].split(",")}
    assert directives == {"public", f"max-age={max_age}", f"stale-while-revalidate={swr}"}
    assert response["ETag"].startswith('"') and response["ETag"].endswith('"')


@pytest.mark.parametrize("url", PUBLIC)
def test_if_none_match_with_the_current_etag_is_304_without_a_body(anon, alice, url):
    etag = anon.get(url)["ETag"]
    again = anon.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == etag and "max-age" in again["Cache-Control"]
    assert anon.get(url, HTTP_IF_NONE_MATCH=f"W/{etag}").status_code == 304
    assert anon.get(url, HTTP_IF_NONE_MATCH='"something-else"').status_code == 200


def test_the_etag_changes_when_the_answer_does(anon, alice):
    before = anon.get(PUBLIC[2])["ETag"]
    rate("bob", 1600, games=6, days_ago=1)
    after = anon.get(PUBLIC[2], HTTP_IF_NONE_MATCH=before)
    assert after.status_code == 200 and after["ETag"] != before
    assert [e["player"] for e in after.json()["entries"]] == ["bob", "alice"]


def test_errors_are_not_marked_cacheable(anon, db):
    response = anon.get("/api/v1/players/nobody/")
    assert response.status_code == 404 and "ETag" not in response and "Cache-Control" not in response


def test_no_origin_is_allowed_by_default(anon, alice):
    response = anon.get(PUBLIC[0], HTTP_ORIGIN=SITE)
    assert response.status_code == 200 and "Access-Control-Allow-Origin" not in response


@override_settings(CORS_ALLOWED_ORIGINS=[SITE])
@pytest.mark.parametrize("url", PUBLIC)
def test_an_allowed_origin_may_read_the_public_reads(anon, alice, url):
    response = anon.get(url, HTTP_ORIGIN=SITE)
    assert response["Access-Control-Allow-Origin"] == SITE
    assert "etag" in response["Access-Control-Expose-Headers"].lower()
    assert "Access-Control-Allow-Credentials" not in response
    preflight = anon.options(url, HTTP_ORIGIN=SITE, HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET")
    assert preflight.status_code == 200 and preflight["Access-Control-Allow-Origin"] == SITE
    assert anon.get(url, HTTP_ORIGIN="https://elsewhere.example").get("Access-Control-Allow-Origin") is None


@override_settings(CORS_ALLOWED_ORIGINS=[SITE])
@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/api/v1/players/alice/preferences/"),
        ("post", "/api/v1/games/"),
        ("get", "/api/v1/games/1/"),
        ("post", "/api/v1/matchmaking/tickets/"),
        ("post", "/api/v1/reports/"),
        ("post", "/api/v1/games/batch/"),
    ],
)
def test_key_authenticated_endpoints_never_answer_cors(api, method, url):
    response = getattr(api, method)(url, {}, format="json", HTTP_ORIGIN=SITE)
    assert "Access-Control-Allow-Origin" not in response
    preflight = api.options(url, HTTP_ORIGIN=SITE, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST")
    assert "Access-Control-Allow-Origin" not in preflight
    assert "ETag" not in response and "public" not in response.get("Cache-Control", "")
