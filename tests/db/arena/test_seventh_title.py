"""A seventh title touches only its rules module and the registry (issue 23 §3).

The fixture adds a made-up game (``SushiGo``: 2 to 5 players, ranked by score, no fields of its own) to the
registry and nothing else; the game then goes through recording (the API), rating (the Elo stage, embedded),
the boards (the database board's API) and the simulation. The Elo numbers are worked by hand from
docs/ratings.md: everyone starts at 1500, K is 60 for fewer than 10 rated games, a 3-player table of a game
recommended at 4 has P(3) = 2/3, and the winner of two even duels gains 2 x 0.5, so
60 x 2/3 x 1 = +40; the last loses 40; the middle player wins one duel and loses the other, 0.
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import MappingProxyType

import pytest

import arena.games as registry
from arena.games.base import GameRules
from arena.models import Game
from moderation.simulation import Mix, Simulation
from ratings.models import Rating
from tests.conftest import game_body, player

pytestmark = pytest.mark.django_db(transaction=True)  # commits happen: the embedded Elo stage runs after them


class SushiGo(GameRules):
    """Only what a rules module says: title, name, table sizes; everything else is GameRules' default."""

    title = "sushi_go"
    name = "Sushi Go"
    min_players = 2
    max_players = 5
    recommended_players = 4


@pytest.fixture
def seventh_title(monkeypatch):
    games = (*registry.all_games(), SushiGo())
    monkeypatch.setattr(registry, "_GAMES", games)
    monkeypatch.setattr(registry, "GAMES", MappingProxyType({game.title: game for game in games}))


def _table(api, scores: dict[str, int]) -> None:
    body = game_body("sushi_go", [player(name, score) for name, score in scores.items()])
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 201, response.content


def test_a_seventh_title_is_recorded_rated_ranked_and_simulated(seventh_title, embedded_tasks, api, anon):
    _table(api, {"alice": 50, "bob": 40, "carol": 30})
    assert Game.objects.get(title="sushi_go").status == Game.Status.RATED
    elo = {r.player.handle: r.elo for r in Rating.objects.filter(title="sushi_go").select_related("player")}
    assert elo == pytest.approx({"alice": 1540.0, "bob": 1500.0, "carol": 1460.0})

    for _ in range(4):  # five rated games each: on the board (docs/api.md, Leaderboards)
        _table(api, {"alice": 50, "bob": 40, "carol": 30})
    board = anon.get("/api/v1/leaderboards/sushi_go/")
    assert board.status_code == 200, board.content
    assert [entry["player"] for entry in board.json()["entries"]] == ["alice", "bob", "carol"]

    bodies = Simulation(
        Mix(players=30, households=2, cafes=0, rings=1, games=300), seed=3, now=datetime(2026, 1, 1, tzinfo=UTC)
    ).build()
    sushi = [body for body in bodies if body["game"] == "sushi_go"]
    assert sushi, "the simulation never played the seventh title"
    for body in sushi:
        assert "variant" not in body  # not simulated as Hanabi (whose bodies carry a deck)
        assert 2 <= len(body["players"]) <= 4
        scores = [entry["score"] for entry in body["players"]]
        assert len(set(scores)) == len(scores)  # a game ranked by score: distinct places
