"""GET /api/v1/titles/{game}/economy/ (docs/api.md, "The rating economy"): the small season of docs/ratings.md read
back by an operator's key, the population by hand, the refusals, and the schema."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from arena.models import Player
from arena.servers import game_server_create
from ratings import economy
from ratings.models import LedgerDay, PopulationDay, Rating
from ratings.resets import rating_reset
from tests.db.observability.metrics_text import TOKEN, scrape, value
from tests.db.ratings.helpers import rate_all
from tests.db.ratings.test_ledger_stored import DAY1, _tokaido, clock  # noqa: F401 - the fixture

URL = "/api/v1/titles/tokaido/economy/"


@pytest.fixture
def staff(db) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {game_server_create(name='ops', scopes=['staff']).key}")
    return client


def test_the_small_season_read_back(api, staff, settings, clock):  # noqa: F811
    settings.ELO_FLOOR = 1440.0
    api.post("/api/v1/games/", _tokaido(("A", 40, False), ("B", 30, False)), format="json")
    rate_all(titles=["tokaido"])
    clock.at = DAY1 + timedelta(days=1)
    api.post("/api/v1/games/", _tokaido(("A", 40, False), ("B", 30, True)), format="json")
    rate_all(titles=["tokaido"])
    rating_reset(player=Player.objects.get(handle="A"), titles=["tokaido"])
    # Day 1's population as beat took it that evening: both players active at 1530 and 1470 → mean = median 1500.
    PopulationDay.objects.create(title="tokaido", day=DAY1.date(), active=2, mean=1500.0, median=1500.0, taken_at=DAY1)
    Rating.objects.filter(title="tokaido").update(last_game_at=clock.at)
    response = staff.get(URL + "?days=3")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["game"], body["days"], body["sources"][0]) == ("tokaido", 3, "duel")
    day0, day1, day2 = body["entries"]
    assert (day0["day"], day0["active_players"], day0["created"], day0["net"]) == ("2026-10-31", None, {}, 0.0)
    assert (day1["day"], day1["median"], day1["created"], day1["destroyed"]) == (
        "2026-11-01",
        1500.0,
        {"duel": 30.0},
        {"duel": -30.0},
    )
    # Today (day 2) is taken live: A 1500 after the reset, B 1440 at the floor → mean = median 1470.
    assert (day2["active_players"], day2["mean"], day2["median"]) == (2, 1470.0, 1470.0)
    assert {s: round(v, 4) for s, v in day2["created"].items()} == {"duel": 24.8701, "floor": 4.8701}
    assert {s: round(v, 4) for s, v in day2["destroyed"].items()} == {
        "duel": -24.8701,
        "quit_penalty": -10.0,
        "reset": -54.8701,
    }
    # The pool lost 60 points: both players are at 1500 + 0 and 1500 − 60.
    assert body["totals"]["net"] == pytest.approx(-60.0, abs=1e-9)
    assert day2["net"] == pytest.approx(-60.0, abs=1e-9)


def test_refusals(api, staff):
    assert api.get(URL).json()["error"]["code"] == "missing_scope"  # the default key has no staff scope
    assert staff.get("/api/v1/titles/chess/economy/").json()["error"]["code"] == "unknown_game"
    refused = staff.get(URL + "?days=0")
    error = refused.json()["error"]
    assert (refused.status_code, error["code"], list(error["fields"])) == (400, "invalid_input", ["days"])
    assert staff.get(URL + f"?days={economy.MAX_DAYS + 1}").status_code == 400


def test_the_schema_documents_it(anon, db):
    operation = anon.get("/api/schema/?format=json").json()["paths"]["/api/v1/titles/{game}/economy/"]["get"]
    assert operation["operationId"] == "titles_economy" and operation["security"] == [{"ApiKey": []}]
    days = next(p for p in operation["parameters"] if p["name"] == "days")
    assert (days["schema"]["minimum"], days["schema"]["maximum"]) == (1, 400)


def test_population_snapshot_keeps_the_days_last(db):
    a = Player.objects.create(handle="pa")
    b = Player.objects.create(handle="pb")
    Rating.objects.create(player=a, title="nile", elo=1400.0, games=5, last_game_at=DAY1)
    Rating.objects.create(player=b, title="nile", elo=1700.0, games=5, last_game_at=DAY1)
    economy.population_snapshot(titles=["nile"], now=DAY1)
    Rating.objects.filter(player=a).update(elo=1500.0)
    economy.population_snapshot(titles=["nile", "wizard"], now=DAY1 + timedelta(hours=3))
    rows = {r.title: (r.active, r.mean, r.median) for r in PopulationDay.objects.all()}
    # (1500 + 1700) / 2 = 1600 both ways; wizard has nobody active.
    assert rows == {"nile": (2, 1600.0, 1600.0), "wizard": (0, None, None)}


def test_the_points_metric_is_the_ledgers_net_of_all_time_and_the_drift_threshold_a_setting(anon, settings, db):
    settings.METRICS_TOKEN = TOKEN
    settings.PROMETHEUS_MULTIPROC_DIR = ""
    settings.RATING_DRIFT_POINTS = 40.0
    LedgerDay.objects.bulk_create(
        [
            LedgerDay(title="wizard", day=DAY1.date(), source="quit_penalty", created=0.0, destroyed=-20.0),
            LedgerDay(title="wizard", day=DAY1.date() + timedelta(days=1), source="quit_penalty", destroyed=-10.0),
            LedgerDay(title="wizard", day=DAY1.date(), source="floor", created=4.5),
            LedgerDay(title="nile", day=DAY1.date(), source="duel", created=30.0, destroyed=-30.0),
        ]
    )
    samples = scrape(anon)
    # quit_penalty: −20 − 10 = −30 over the two days; a duel that created as much as it destroyed nets 0.
    assert value(samples, "arena_rating_points_total", title="wizard", source="quit_penalty") == -30.0
    assert value(samples, "arena_rating_points_total", title="wizard", source="floor") == 4.5
    assert value(samples, "arena_rating_points_total", title="nile", source="duel") == 0.0
    assert value(samples, "arena_rating_drift_threshold_points", title="tokaido") == 40.0
