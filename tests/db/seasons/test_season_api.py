"""The season reads (docs/seasons.md), with docs/seasons.md's numbers worked by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.models import Player
from seasons.services import season_follow, season_open, season_rollover
from tests.db.seasons.helpers import rated_game

NOW = datetime(2026, 10, 6, 12, tzinfo=UTC)  # season 1: 2026-10-05 to 2027-01-04 (aligned, 91 days)


@pytest.fixture
def four(settings) -> dict[str, Player]:
    """Example 1's table, everyone bronze (no placement games): places 1, 2, 2, 4."""
    settings.SEASON_PLACEMENT_GAMES = 0
    players = {h: Player.objects.create(handle=h) for h in "abcd"}
    season_open(title="wizard", now=NOW)
    rated_game("wizard", [(players["a"], 0, 1), (players["b"], 1, 2), (players["c"], 2, 2), (players["d"], 3, 4)], NOW)
    assert season_follow(title="wizard") == 1
    return players


def test_the_open_season_and_its_standings(client, four):
    body = client.get("/api/v1/seasons/wizard/").json()
    assert (body["season"], body["starts_at"], body["ends_at"], body["next_reset"]) == (
        1,
        "2026-10-05T00:00:00Z",
        "2027-01-04T00:00:00Z",
        "2027-01-04T00:00:00Z",
    )
    assert body["leagues"][0] == {"name": "bronze", "threshold": 0, "size": 4}
    assert [lg["name"] for lg in body["leagues"]] == ["bronze", "silver", "gold", "platinum", "diamond", "elite"]
    # Everyone weighs 5 (bronze): a 3 x 10 = 30; b and c 5 (tie) + 10 = 15; d 0.
    assert [
        (r["player"], r["rank"], r["league"], r["points"], r["games"], r["placement_left"], r["season_elo"])
        for r in body["standings"]
    ] == [
        ("a", 1, "bronze", 30, 1, 0, None),
        ("b", 2, "bronze", 15, 1, 0, None),
        ("c", 2, "bronze", 15, 1, 0, None),
        ("d", 4, "bronze", 0, 1, 0, None),
    ]
    window = client.get("/api/v1/seasons/wizard/?around=d&limit=3").json()["standings"]
    assert [r["player"] for r in window] == ["b", "c", "d"]
    page = client.get("/api/v1/seasons/wizard/?offset=1&limit=2").json()
    assert (page["total"], [r["player"] for r in page["standings"]]) == (4, ["b", "c"])


def test_banned_player_leaves_the_standings(client, four):
    Player.objects.filter(handle="b").update(status=Player.Status.BANNED)
    rows = client.get("/api/v1/seasons/wizard/").json()["standings"]
    assert [(r["player"], r["rank"]) for r in rows] == [("a", 1), ("c", 2), ("d", 3)]


def test_the_players_season_explains_each_game(client, four):
    body = client.get("/api/v1/players/b/seasons/wizard/").json()
    assert (body["league"], body["points"], body["rank"], body["games"]) == ("bronze", 15, 2, 1)
    (result,) = body["results"]
    assert (result["place"], result["sides"], result["points"]) == (2, 4, 15)
    assert result["opponents"] == [
        {"league": "bronze", "outcome": "loss", "points": 0},
        {"league": "bronze", "outcome": "tie", "points": 5},
        {"league": "bronze", "outcome": "win", "points": 10},
    ]


def test_errors_and_caching(client, four):
    hanabi = client.get("/api/v1/seasons/hanabi/")
    assert (hanabi.status_code, hanabi.json()["error"]["code"]) == (404, "no_season")
    assert client.get("/api/v1/seasons/chess/").status_code == 404
    bad = client.get("/api/v1/seasons/wizard/?limit=0")
    error = bad.json()["error"]
    assert (bad.status_code, error["code"], list(error["fields"])) == (400, "invalid_input", ["limit"])
    missing = client.get("/api/v1/seasons/wizard/?around=zed")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "player_not_found")
    assert client.get("/api/v1/seasons/wizard/1/").json()["error"]["code"] == "season_not_found"  # still open
    first = client.get("/api/v1/seasons/wizard/")
    assert "max-age=5" in first["Cache-Control"] and first["ETag"]
    assert client.get("/api/v1/seasons/wizard/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def test_a_closed_season_reads_only_the_archive(client, four):
    season_rollover(title="wizard", now=datetime(2027, 1, 4, tzinfo=UTC) + timedelta(seconds=1))
    with CaptureQueriesContext(connection) as queries:
        body = client.get("/api/v1/seasons/wizard/1/").json()
    assert [(r["player"], r["rank"], r["points"]) for r in body["standings"]] == [
        ("a", 1, 30),
        ("b", 2, 15),
        ("c", 2, 15),
        ("d", 4, 0),
    ]
    assert body["corrections"] == [] and body["closed_at"] == "2027-01-04T00:00:01Z"
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    assert "seasons_seasonfinal" in sql
    assert "seasons_seasonentry" not in sql and "seasons_seasongame" not in sql
    assert len(queries.captured_queries) <= 6


def test_schema_lists_the_season_reads(client):
    schema = client.get("/api/schema/?format=json").json()
    for route in (
        "/api/v1/seasons/{game}/",
        "/api/v1/seasons/{game}/{season}/",
        "/api/v1/players/{player}/seasons/{game}/",
    ):
        assert "examples" in str(schema["paths"][route]["get"]["responses"]["200"]), route
