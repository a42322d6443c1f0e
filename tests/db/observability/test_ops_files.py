"""ops/alerts.yml and ops/grafana-dashboard.json name only metrics /metrics exposes: a renamed metric would leave
an alert that never fires, silently. Checked after one game recorded, one pass, one push (embedded mode)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from django.test import Client

from matchmaking.models import ServerCallback
from tests.conftest import game_body, player
from tests.db.matchmaking.conftest import ticket_body
from tests.db.matchmaking.receiver import receiver
from tests.db.observability.metrics_text import TOKEN, scrape

OPS = Path(__file__).resolve().parents[3] / "ops"
METRIC = re.compile(r"\b((?:arena|django)_[a-z0-9_]+)\b")
ALERTS = {
    "ArenaRatingLag",
    "ArenaServerErrors",
    "ArenaPushFailures",
    "ArenaSlowMatchmakingPass",
    "ArenaBeatStopped",
    "ArenaRatingDrift",
}

pytestmark = pytest.mark.django_db(transaction=True)


def _alert_exprs() -> dict[str, str]:
    rules = yaml.safe_load((OPS / "alerts.yml").read_text())
    return {rule["alert"]: rule["expr"] for group in rules["groups"] for rule in group["rules"]}


def _dashboard_exprs() -> list[str]:
    dashboard = json.loads((OPS / "grafana-dashboard.json").read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def test_the_five_alerts_of_the_issue_are_there():
    exprs = _alert_exprs()
    assert set(exprs) == ALERTS
    assert "> 60" in exprs["ArenaRatingLag"] and "arena_rating_oldest_pending_seconds" in exprs["ArenaRatingLag"]
    assert "> 0.01" in exprs["ArenaServerErrors"] and '"5.."' in exprs["ArenaServerErrors"]
    assert "> 1" in exprs["ArenaSlowMatchmakingPass"] and "> 10" in exprs["ArenaBeatStopped"]
    # The drift threshold is the RATING_DRIFT_POINTS setting, exposed per title (default 25).
    assert "offset 30d) > arena_rating_drift_threshold_points" in exprs["ArenaRatingDrift"]


@pytest.fixture
def _embedded(embedded_mode, settings):
    settings.METRICS_TOKEN = TOKEN
    settings.PROMETHEUS_MULTIPROC_DIR = ""


def test_every_metric_in_the_rules_and_the_dashboard_is_exposed(_embedded, api, server_key):
    assert (
        api.post(
            "/api/v1/games/", game_body("wizard", [player("a", 30), player("b", 20), player("c", 10)]), format="json"
        ).status_code
        == 201
    )
    with receiver() as box:
        ServerCallback.objects.create(server=server_key[0], url=box.url)
        for name in ("p1", "p2", "p3", "p4"):
            api.post("/api/v1/matchmaking/tickets/", ticket_body(name), format="json")
        box.wait_for(1)
    api.get("/api/v1/leaderboards/wizard/")
    exposed = {name for name, _labels in scrape(Client())}
    named = {name for expr in [*_alert_exprs().values(), *_dashboard_exprs()] for name in METRIC.findall(expr)}
    assert len(named) >= 20
    assert named - exposed == set()
