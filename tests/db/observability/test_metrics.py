"""/metrics (docs/observability.md): the bearer token, the scrape-time gauges read from the database, and the
counters and histograms the services observe. Embedded mode: tasks and pushes run in-process."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from arena.models import Game
from infra import beat
from matchmaking.models import ServerCallback
from moderation.models import DetectionState
from ratings.models import RatingStage
from tests.conftest import game_body, player
from tests.db.matchmaking.conftest import ticket_body
from tests.db.matchmaking.receiver import receiver
from tests.db.observability.metrics_text import TOKEN, scrape, value

pytestmark = pytest.mark.django_db(transaction=True)


def wizard():
    return game_body("wizard", [player("a", 30), player("b", 20), player("c", 10)])


@pytest.fixture(autouse=True)
def _token(settings):
    settings.METRICS_TOKEN = TOKEN
    settings.PROMETHEUS_MULTIPROC_DIR = ""


@pytest.fixture(autouse=True)
def _embedded(embedded_mode):
    """The metrics of the embedded mode: its passes and tasks run in this process, where /metrics reads them."""


@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", "Bearer "])
def test_without_the_token_metrics_is_a_plain_404(header):
    extra = {"HTTP_AUTHORIZATION": header} if header else {}
    answer = Client().get("/metrics", **extra)
    assert answer.status_code == 404
    assert b"arena_" not in answer.content


def test_with_no_token_configured_even_an_empty_bearer_is_404(settings):
    settings.METRICS_TOKEN = ""
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer").status_code == 404


def test_rating_lag_gauges_read_the_database_at_scrape(api):
    for _ in range(3):
        assert api.post("/api/v1/games/", wizard(), format="json").status_code == 201
    # A stuck Elo worker, as the gauges must see it: two games pending, the older accepted 90 s ago.
    first, second, _ = Game.objects.order_by("id")
    now = timezone.now()
    Game.objects.filter(pk=first.pk).update(status=Game.Status.PENDING, accepted_at=now - timedelta(seconds=90))
    Game.objects.filter(pk=second.pk).update(status=Game.Status.PENDING, accepted_at=now - timedelta(seconds=30))
    samples = scrape(Client())
    assert value(samples, "arena_rating_pending_games", title="wizard") == 2
    assert 90 <= value(samples, "arena_rating_oldest_pending_seconds", title="wizard") < 100
    # Every title has its series, at 0 when nothing waits.
    assert value(samples, "arena_rating_pending_games", title="nile") == 0
    assert value(samples, "arena_rating_oldest_pending_seconds", title="nile") == 0
    # The third game went through both stages; the pending ones have not reached TrueSkill.
    assert value(samples, "arena_trueskill_pending_games", title="wizard") == 0
    # Detection (eager, after each batch) looked at all three: nothing new past its watermark.
    assert DetectionState.objects.get().last_game_id == Game.objects.order_by("-id").first().pk
    assert value(samples, "arena_detection_pending_games", title="wizard") == 0
    assert value(samples, "arena_metrics_database_up") == 1


def test_trueskill_and_detection_gauges(api):
    assert api.post("/api/v1/games/", wizard(), format="json").status_code == 201
    game = Game.objects.get()
    stage = RatingStage.objects.get(title="wizard", stage=RatingStage.Stage.TRUESKILL)
    assert game.status == Game.Status.RATED and stage.last_seq == game.rating_seq
    now = timezone.now()
    # The TrueSkill stage one game behind: its row's last_seq before the game's seq.
    RatingStage.objects.filter(pk=stage.pk).update(last_seq=game.rating_seq - 1)
    Game.objects.filter(pk=game.pk).update(accepted_at=now - timedelta(seconds=45))
    DetectionState.objects.update(last_game_id=0)
    samples = scrape(Client())
    assert value(samples, "arena_trueskill_pending_games", title="wizard") == 1
    assert 45 <= value(samples, "arena_trueskill_oldest_pending_seconds", title="wizard") < 55
    assert value(samples, "arena_detection_pending_games", title="wizard") == 1
    assert 45 <= value(samples, "arena_detection_oldest_pending_seconds", title="wizard") < 55


def test_batches_are_counted_once_each_with_their_games(api):
    before = scrape(Client())
    assert api.post("/api/v1/games/batch/", {"games": [wizard() for _ in range(4)]}, format="json").status_code == 200
    after = scrape(Client())
    # Embedded: one Elo run after the batch's commit rates the 4 games in one batch (the empty look is not counted).
    assert value(after, "arena_rating_batch_games_count") - value(before, "arena_rating_batch_games_count") == 1
    assert value(after, "arena_rating_batch_games_sum") - value(before, "arena_rating_batch_games_sum") == 4
    assert value(after, "arena_rating_batch_seconds_count") - value(before, "arena_rating_batch_seconds_count") == 1


def test_a_pass_a_table_its_waits_and_a_push_are_counted(api, server_key):
    before = scrape(Client())
    with receiver() as box:
        ServerCallback.objects.create(server=server_key[0], url=box.url)
        bodies = []
        for name in ("p1", "p2", "p3", "p4"):
            bodies.append(api.post("/api/v1/matchmaking/tickets/", ticket_body(name), format="json").json())
            if name == "p1":
                assert value(scrape(Client()), "arena_matchmaking_waiting_tickets", title="tokaido") == 1
        assert bodies[-1]["status"] == "matched", bodies[-1]  # four: Tokaido's recommended table, seated at once
        box.wait_for(1)
    after = scrape(Client())

    def grew(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("arena_matchmaking_tables_total") == 1
    assert grew("arena_matchmaking_wait_seconds_count") == 4  # each ticket seated
    assert grew("arena_matchmaking_pass_seconds_count") >= 4  # a pass on each ticket's creation at least
    assert grew("arena_push_attempts_total", outcome="delivered") == 1
    assert grew("arena_push_attempts_total", outcome="failed") == 0
    assert value(after, "arena_matchmaking_waiting_tickets", title="tokaido") == 0
    assert value(after, "arena_push_pending") == 0


def test_beat_heartbeat_is_read_from_the_cache():
    beat.beat_tick(now=1_700_000_000.0)
    assert value(scrape(Client()), "arena_beat_last_tick_timestamp_seconds") == 1_700_000_000.0


def test_request_metrics_by_route_and_status(api):
    api.get("/api/v1/games/999999/")
    samples = scrape(Client())
    by_status = [
        (name, labels, v)
        for (name, labels), v in samples.items()
        if name == "django_http_responses_total_by_status_view_method_total"
        and dict(labels).get("view") == "games-detail"
        and dict(labels).get("status") == "404"
    ]
    assert by_status and by_status[0][2] >= 1
    assert any(
        name == "django_http_requests_latency_seconds_by_view_status_count"
        and dict(labels) == {"view": "games-detail", "status": "404"}
        for (name, labels) in samples
    )
