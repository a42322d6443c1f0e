"""avoid_provisional on tickets (docs/matchmaking.md, "Avoiding provisional players"): an established player's
ticket is never seated with a provisional player, worked out from the rating as the player page shows it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from arena.models import Player
from matchmaking.models import Ticket
from ratings.models import Rating
from tests.db.matchmaking.conftest import ticket_body

pytestmark = pytest.mark.django_db
TICKETS = "/api/v1/matchmaking/tickets/"


def _rated(handle: str, games: int, days_ago: float = 1.0) -> None:
    Rating.objects.create(
        player=Player.objects.get_or_create(handle=handle)[0],
        title="tokaido",
        elo=1500.0,
        games=games,
        last_game_at=timezone.now() - timedelta(days=days_ago),
    )


def _aged(api, ticket_id: str) -> dict:
    """The ticket read after every waiting ticket has waited a minute more: past the 30 s after which a table
    smaller than the game's recommended one may form (docs/matchmaking.md); the GET runs the pool's pass."""
    Ticket.objects.update(created_at=F("created_at") - timedelta(seconds=60))
    return api.get(TICKETS + ticket_id + "/").json()


def _open(api, handle: str, **extra) -> dict:
    answer = api.post(TICKETS, ticket_body(handle, min_players=2, max_players=2, **extra), format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


def test_an_avoider_waits_past_a_newcomer_and_sits_with_a_settled_player(api):
    _rated("veteran", 40)
    _rated("rookie", 12)  # 12 games: K 40, band 120 > 110, provisional
    _rated("regular", 25)  # 25 games, played yesterday: band 60, settled
    mine = _open(api, "veteran", avoid_provisional=True)
    assert mine["avoid_provisional"] is True
    rookie = _open(api, "rookie")
    assert _aged(api, mine["id"])["status"] == "waiting"
    _open(api, "regular")
    seated = _aged(api, mine["id"])
    assert seated["status"] == "matched" and set(seated["table"]["players"]) == {"veteran", "regular"}
    assert api.get(TICKETS + rookie["id"] + "/").json()["status"] == "waiting"


def test_a_long_absence_makes_a_settled_player_provisional_too(api):
    # 42 games, 365 days away: sqrt(60² + 25 × 365) = 112.81 > 110 (docs/ratings.md, example 4).
    _rated("veteran", 40)
    _rated("returning", 42, days_ago=365.5)
    mine = _open(api, "veteran", avoid_provisional=True)
    _open(api, "returning")
    assert _aged(api, mine["id"])["status"] == "waiting"


def test_without_asking_anyone_may_sit_together(api):
    _rated("veteran", 40)
    _rated("rookie", 3)
    mine = _open(api, "veteran")
    assert mine["avoid_provisional"] is False
    _open(api, "rookie")
    assert _aged(api, mine["id"])["status"] == "matched"


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_avoid_provisional_must_be_a_boolean(api, value):
    answer = api.post(TICKETS, ticket_body("x", avoid_provisional=value), format="json")
    assert answer.status_code == 400 and "avoid_provisional" in answer.json()["error"]["fields"]
