"""Rollover once (beat, operator, a failure half-way), carry-over, late games and corrections after a void
(docs/seasons.md "After the close"); the numbers are worked by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from arena.models import Game, Player
from seasons import services
from seasons.models import Season, SeasonCorrection, SeasonEntry, SeasonFinal, SeasonRollover
from seasons.selectors import corrections_for_games
from seasons.services import season_follow, season_open, season_replay_live, season_rollover
from tests.db.seasons.helpers import carry_of, rated_game

NOW = datetime(2026, 10, 6, 12, tzinfo=UTC)
END = datetime(2027, 1, 4, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _no_placement(settings) -> None:
    settings.SEASON_PLACEMENT_GAMES = 0


def players(handles: str) -> list[Player]:
    return [Player.objects.create(handle=h) for h in handles]


def test_beat_closes_once_and_carries_over(client):
    a, e, d = players("aed")
    season = season_open(title="wizard", now=NOW)
    # a and e carried into gold (250 points); a beats d: 2 x 5 = 10 -> 260.
    SeasonEntry.objects.all().delete()
    SeasonEntry.objects.bulk_create(
        [
            SeasonEntry(season=season, player=p, carried=2, league=2, points=250, elo=1500, tier=2, score=250)
            for p in (a, e)
        ]
    )
    season_replay_live(title="wizard")
    rated_game("wizard", [(a, 0, 1), (d, 1, 2)], NOW)
    season_follow(title="wizard")
    assert season_rollover(title="wizard", now=END - timedelta(seconds=1)) is None  # not due yet
    closed = season_rollover(title="wizard", now=END)
    assert closed is not None and closed.number == 1
    assert season_rollover(title="wizard", now=END + timedelta(minutes=1)) is None  # once
    assert list(
        Season.objects.filter(title="wizard").order_by("number").values_list("number", "starts_at", "ends_at")
    ) == [(1, datetime(2026, 10, 5, tzinfo=UTC), END), (2, END, datetime(2027, 4, 5, tzinfo=UTC))]
    # Gold holds a (260) and e (250): ceil(2 x 0.2) = 1 in the zone, e. a goes one down (silver), e two (bronze).
    finals = {f.player.handle: (f.rank, f.league, f.points, f.relegation) for f in SeasonFinal.objects.all()}
    assert finals == {"a": (1, 2, 260, False), "e": (2, 2, 250, True), "d": (3, 0, 0, False)}
    following = Season.objects.get(title="wizard", number=2)
    assert carry_of(following) == {a.pk: 1}
    body = client.get("/api/v1/seasons/wizard/").json()
    assert body["season"] == 2
    assert [(r["player"], r["league"], r["points"], r["games"]) for r in body["standings"]] == [("a", "silver", 100, 0)]


def test_operator_rollover_is_audited_and_a_retry_does_nothing():
    (a, b) = players("ab")
    season_open(title="tokaido", now=NOW)
    rated_game("tokaido", [(a, 0, 1), (b, 1, 2)], NOW)
    season_follow(title="tokaido")
    call_command("season_rollover", "tokaido", "--season", "1", "--reason", "ring found", "--actor", "ops")
    call_command("season_rollover", "tokaido", "--season", "1", "--reason", "ring found", "--actor", "ops")
    assert list(SeasonRollover.objects.values_list("title", "closed_number", "actor", "reason")) == [
        ("tokaido", 1, "ops", "ring found")
    ]
    assert Season.objects.filter(title="tokaido").count() == 2
    assert Season.objects.get(title="tokaido", number=1).closed_at is not None


def test_a_failure_half_way_leaves_nothing_written(monkeypatch):
    (a, b) = players("ab")
    season_open(title="nile", now=NOW)
    rated_game("nile", [(a, 0, 1), (b, 1, 2)], NOW)
    season_follow(title="nile")

    close = services._close

    def killed(season, following):
        close(season, following)  # the archive and the next season's entries written, then the worker dies
        raise RuntimeError("worker killed")

    monkeypatch.setattr(services, "_close", killed)
    with pytest.raises(RuntimeError):
        season_rollover(title="nile", now=END)
    assert (SeasonFinal.objects.count(), Season.objects.filter(title="nile").count()) == (0, 1)
    assert Season.objects.get(title="nile").closed_at is None
    monkeypatch.undo()
    assert season_rollover(title="nile", now=END).number == 1
    assert (SeasonFinal.objects.count(), Season.objects.filter(title="nile").count()) == (2, 2)


def test_void_after_close_corrects_the_archive(client):
    a, b, c = players("abc")
    season_open(title="wizard", now=NOW)
    rated_game("wizard", [(b, 0, 1), (a, 1, 2)], NOW)  # b 10
    rated_game("wizard", [(a, 0, 1), (c, 1, 2)], NOW + timedelta(hours=1))  # a 10
    ring = rated_game("wizard", [(a, 0, 1), (c, 1, 2)], NOW + timedelta(hours=2))  # a 20
    season_follow(title="wizard")
    season_rollover(title="wizard", now=END)
    assert [(f.player.handle, f.rank, f.points) for f in SeasonFinal.objects.order_by("rank")] == [
        ("a", 1, 20),
        ("b", 2, 10),
        ("c", 3, 0),
    ]
    Game.objects.filter(pk=ring.pk).update(status=Game.Status.VOID)
    season_replay_live(title="wizard")  # what ratings' rebuild after the void makes the seasons do
    today = timezone.now().date().isoformat()
    lines = {c.player.handle: c.text for c in SeasonCorrection.objects.all()}
    assert lines == {"a": f"points 20 -> 10: 1 game voided on {today}", "b": f"place 2 -> 1: 1 game voided on {today}"}
    body = client.get("/api/v1/seasons/wizard/1/").json()
    assert [(r["player"], r["rank"], r["points"]) for r in body["standings"]] == [
        ("a", 1, 10),
        ("b", 1, 10),
        ("c", 3, 0),
    ]
    assert [c["player"] for c in body["corrections"]] == ["a", "b"]
    assert client.get("/api/v1/players/b/seasons/wizard/").json()["corrections"][0]["text"] == lines["b"]
    assert [x["player"] for x in corrections_for_games(game_ids=[ring.pk])] == ["a", "b"]
    season_replay_live(title="wizard")  # a second rebuild: nothing new to correct
    assert SeasonCorrection.objects.count() == 2


def test_a_game_rated_after_the_close_counts_for_the_closed_season():
    a, b = players("ab")
    season_open(title="spades", now=NOW)
    season_rollover(title="spades", now=END)
    late = rated_game("spades", [(a, 0, 1), (b, 1, 2)], END - timedelta(minutes=5))
    season_follow(title="spades", game_ids=[late.pk])
    assert [(f.player.handle, f.rank, f.points) for f in SeasonFinal.objects.order_by("rank")] == [
        ("a", 1, 10),
        ("b", 2, 0),
    ]
    assert not SeasonEntry.objects.filter(season__number=2).exists()  # not in the new season
