"""The wiring: a rating batch's RatingsChanged folds into the season (after its commit); a rebuild replays it."""

from __future__ import annotations

from datetime import UTC, datetime

from arena.models import Game
from ratings.elo_batch import elo_stage_run
from ratings.rebuild import title_rebuild
from seasons.models import SeasonEntry
from seasons.services import season_open
from tests.conftest import game_body, player


def test_a_batch_reaches_the_season_and_a_void_rebuild_replays_it(
    api, embedded_tasks, settings, django_capture_on_commit_callbacks
):
    settings.SEASON_PLACEMENT_GAMES = 0
    season_open(title="tokaido", now=datetime(2026, 10, 6, tzinfo=UTC))
    body = game_body(
        "tokaido",
        [player("ann", 40, achievements=0), player("bob", 30, achievements=0)],
        finished_at="2026-10-07T10:00:00Z",
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post("/api/v1/games/", body, format="json").status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        elo_stage_run(title="tokaido", limit=100)
    assert dict(SeasonEntry.objects.values_list("player__handle", "points")) == {"ann": 10, "bob": 0}
    Game.objects.update(status=Game.Status.VOID)
    with django_capture_on_commit_callbacks(execute=True):
        title_rebuild(title="tokaido")
    assert not SeasonEntry.objects.exists()
