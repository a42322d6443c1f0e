"""GET /api/v1/games/{id}/explain/ and ?explain=true on history: from the stored rows, for every title.

The property: for every rated game of every title, each seat's terms plus its quit penalty (plus the floor, when
one is set) add up to the stored delta to 1e-9. The spec's worked examples go through the API too, by hand.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from rest_framework.test import APIClient

from arena.models import Game, Player
from arena.players import player_status_ban
from moderation.services.penalties import games_void, void_rebuild_run
from ratings.models import RatingChange
from ratings.selectors import game_explanations
from tests.conftest import game_body, player
from tests.db.ratings.bodies import bodies, random_bodies
from tests.db.ratings.helpers import post, rate_all, rolled_back

pytestmark = pytest.mark.django_db
EXAMPLES = int(os.environ.get("RATING_EXAMPLES", "30"))


def _check_every_game_adds_up() -> int:
    """Every rated game's explanation against its stored history rows; returns how many seats were checked."""
    stored = {
        (g, h): d
        for g, h, d in RatingChange.objects.filter(kind="game").values_list("game_id", "player__handle", "delta")
    }
    rated = list(Game.objects.filter(status=Game.Status.RATED).values_list("pk", flat=True))
    checked = 0
    for pk, explained in game_explanations(game_ids=rated).items():
        assert len(explained["seats"]) == sum(1 for g, _ in stored if g == pk)
        for seat in explained["seats"]:
            delta = stored[(pk, seat["player"])]
            assert seat["delta"] == delta
            total = sum(t["term"] for t in seat["terms"]) + seat["quit_penalty"] + seat["floor"]
            assert abs(total - delta) <= 1e-9, (pk, seat)
            assert seat["floor"] == 0.0  # no floor configured
            if explained["title"] == "hanabi":
                assert [t["against"] for t in seat["terms"]] == ["Hanabot"]
            else:
                assert len(seat["terms"]) == explained["sides"] - 1
            checked += 1
    return checked


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(games=bodies(max_size=25))
def test_terms_add_up_to_the_stored_delta_for_every_title(api, games):
    with rolled_back():
        post(api, games)
        rate_all()
        _check_every_game_adds_up()


def test_a_long_run_of_every_title_adds_up_through_the_api(api):
    games = random_bodies(random.Random(15), 300, pool=12)
    post(api, games)
    rate_all()
    assert _check_every_game_adds_up() > 500
    anon = APIClient()
    seen = set()
    for game in Game.objects.filter(status=Game.Status.RATED).order_by("pk")[:60]:
        answer = anon.get(f"/api/v1/games/{game.pk}/explain/")
        assert answer.status_code == 200
        body = answer.json()
        seen.add(body["title"])
        for seat in body["seats"]:
            assert abs(sum(t["term"] for t in seat["terms"]) + seat["quit_penalty"] - seat["delta"]) <= 1e-9
    assert seen == {"wizard", "hanabi", "tokaido", "spades", "railroad_ink", "nile"}


def _rated(api, body):
    response = api.post("/api/v1/games/", body, format="json")
    assert response.status_code == 201, response.content
    rate_all()
    return response.json()["id"]


def test_example_2_through_the_api(api):
    # docs/ratings.md example 2: four new players, P(4) = 0.5, every E = 0.5, each duel ±15.
    pk = _rated(api, game_body("wizard", [player(n, s) for n, s in (("w1", 100), ("w2", 60), ("w3", 40), ("w4", 0))]))
    body = APIClient().get(f"/api/v1/games/{pk}/explain/").json()
    assert (body["game"], body["title"], body["status"], body["multiplier"]) == (pk, "wizard", "rated", 0.5)
    seats = {s["player"]: s for s in body["seats"]}
    assert [(t["against"], t["rating"], t["expected"], t["score"], t["term"]) for t in seats["w2"]["terms"]] == [
        ("w1", 1500.0, 0.5, 0.0, -15.0),
        ("w3", 1500.0, 0.5, 1.0, 15.0),
        ("w4", 1500.0, 0.5, 1.0, 15.0),
    ]
    assert [seats[n]["delta"] for n in ("w1", "w2", "w3", "w4")] == [45.0, 15.0, -15.0, -45.0]
    assert seats["w1"]["k"] == 60 and "fewer than 10" in seats["w1"]["k_reason"] and seats["w1"]["place"] == 1


def test_example_7_quit_through_the_api(api):
    # Example 7: the fourth quits: its duels −45, the penalty −10.
    pk = _rated(
        api, game_body("wizard", [player("q1", 100), player("q2", 60), player("q3", 40), player("q4", 0, quit=True)])
    )
    seats = {s["player"]: s for s in APIClient().get(f"/api/v1/games/{pk}/explain/").json()["seats"]}
    assert (seats["q4"]["quit"], seats["q4"]["terms_sum"], seats["q4"]["quit_penalty"], seats["q4"]["delta"]) == (
        True,
        -45.0,
        -10.0,
        -55.0,
    )
    # docs/ratings.md, "Where rating points come from": each part named by its source.
    assert seats["q4"]["sources"] == {"duel": -45.0, "quit_penalty": -10.0}
    assert seats["q1"]["sources"] == {"duel": 45.0}


def test_example_7_with_a_floor_names_the_floors_part(api, settings):
    # With ELO_FLOOR 1450 the quitter's 1500 − 55 = 1445 stops at 1450: delta −50, the floor gave back +5.
    settings.ELO_FLOOR = 1450.0
    pk = _rated(
        api, game_body("wizard", [player("f1", 100), player("f2", 60), player("f3", 40), player("f4", 0, quit=True)])
    )
    seats = {s["player"]: s for s in APIClient().get(f"/api/v1/games/{pk}/explain/").json()["seats"]}
    assert (seats["f4"]["delta"], seats["f4"]["sources"]) == (
        -50.0,
        {"duel": -45.0, "quit_penalty": -10.0, "floor": 5.0},
    )


def test_example_4_hanabi_through_the_api(api):
    # Example 4: three new players, score 22, class 50 → Hanabot 1468; E = 0.545922; 60 · (0.5 − 0.545922).
    pk = _rated(api, game_body("hanabi", [player(n, 22) for n in ("h1", "h2", "h3")], variant={"deck": "normal"}))
    body = APIClient().get(f"/api/v1/games/{pk}/explain/").json()
    assert body["team_rating"] == 1500.0
    assert body["hanabot"] == {
        "variant": "normal",
        "variant_class": "50",
        "team_size": 3,
        "score": 22,
        "threshold": 18,
        "max_score": 25,
        "rule": "table",
        "rating": 1468.0,
        "perfect_score_rule": False,
    }
    (term,) = body["seats"][0]["terms"]
    assert term["against"] == "Hanabot" and term["score"] == 0.5
    assert term["expected"] == pytest.approx(0.545922, abs=1e-6)
    assert term["term"] == pytest.approx(-2.75532, abs=1e-4)
    (source,) = body["seats"][0]["sources"].items()
    assert source[0] == "hanabot" and source[1] == pytest.approx(-2.75532, abs=1e-4)


def test_history_inlines_each_change_explained(api):
    pk = _rated(api, game_body("wizard", [player(n, s) for n, s in (("x1", 100), ("x2", 60), ("x3", 40), ("x4", 0))]))
    plain = APIClient().get("/api/v1/players/x2/history/wizard/").json()
    assert "explanation" not in plain["entries"][0]
    explained = APIClient().get("/api/v1/players/x2/history/wizard/?explain=true").json()
    (entry,) = explained["entries"]
    assert entry["game_id"] == pk and entry["explanation"]["player"] == "x2"
    assert [t["term"] for t in entry["explanation"]["terms"]] == [-15.0, 15.0, 15.0]
    assert entry["explanation"]["multiplier"] == 0.5
    assert APIClient().get("/api/v1/players/x2/history/wizard/?explain=maybe").status_code == 400


def test_a_pending_game_is_409_not_rated_yet_with_its_status(api):
    players = [player("p1", 30, achievements=0), player("p2", 20, achievements=0)]
    response = api.post("/api/v1/games/", game_body("tokaido", players), format="json")
    pk = response.json()["id"]  # the db fixture never commits: the rating hand-off never runs
    answer = APIClient().get(f"/api/v1/games/{pk}/explain/")
    assert answer.status_code == 409
    error = answer.json()["error"]
    assert (error["code"], error["status"]) == ("not_rated_yet", "pending")


def test_an_unrated_game_is_409_not_rated(api):
    players = [player("u1", 30, achievements=0), player("u2", 20, achievements=0)]
    response = api.post("/api/v1/games/", game_body("tokaido", players, rated=False), format="json")
    answer = APIClient().get(f"/api/v1/games/{response.json()['id']}/explain/")
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "not_rated" and answer.json()["error"]["status"] == "unrated"


def test_an_unknown_game_is_404():
    assert APIClient().get("/api/v1/games/987654/explain/").json()["error"]["code"] == "game_not_found"


def test_a_void_game_answers_with_its_void_and_refunds(api):
    # cheat beats v twice at 1500 (K 60): +30 then, with cheat at 1530 and v at 1470, E(1470, 1530) = 0.414501
    # so v loses 60 · 0.414501 = 24.87. Voiding both refunds v 30 + 24.87 = 54.87 and takes cheat's back.
    first = _rated(api, game_body("tokaido", [player("cheat", 40, achievements=0), player("v", 20, achievements=0)]))
    second = _rated(api, game_body("tokaido", [player("cheat", 40, achievements=0), player("v", 20, achievements=0)]))
    player_status_ban(player=Player.objects.get(handle="cheat"))
    entry = games_void(moderator=None, games=list(Game.objects.filter(pk__in=[first, second])), note="ring")
    pending = APIClient().get(f"/api/v1/games/{first}/explain/").json()
    assert pending["status"] == "void" and pending["void"]["pending"] and pending["void"]["refunds"] == []
    void_rebuild_run(entry_id=entry.pk, title="tokaido")
    body = APIClient().get(f"/api/v1/games/{first}/explain/").json()
    assert body["status"] == "void" and "seats" not in body
    assert body["void"]["games"] == [first, second] and not body["void"]["pending"]
    refunds = {r["player"]: r["delta"] for r in body["void"]["refunds"]}
    assert refunds["v"] == pytest.approx(54.87, abs=0.01)
    assert refunds["cheat"] == pytest.approx(-54.87, abs=0.01)
    # Both games voided, nothing after them: all of each move is the games' own change given back (void_refund).
    sources = {r["player"]: r["sources"] for r in body["void"]["refunds"]}
    assert sources["v"] == {"void_refund": pytest.approx(54.87, abs=0.01)}
    assert sources["cheat"] == {"void_refund": pytest.approx(-54.87, abs=0.01)}
    assert "note" not in body["void"]


def test_explain_is_public_and_throttled(api, settings):
    pk = _rated(api, game_body("tokaido", [player("t1", 30, achievements=0), player("t2", 20, achievements=0)]))
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"public": "2/min"}}
    client = APIClient(REMOTE_ADDR="203.0.113.9")
    assert client.get(f"/api/v1/games/{pk}/explain/").status_code == 200
    assert client.get("/api/v1/players/t1/").status_code == 200  # the same bucket as the player pages
    refused = client.get(f"/api/v1/games/{pk}/explain/")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "throttled"


def test_the_explanation_shows_the_games_two_decimals_beside_the_unrounded_numbers_that_add_up(api):
    """docs/ratings.md, "Two precisions". Worked by hand: after a first Tokaido duel (two new players, K 60,
    P(2) = 1, ±30), t6 (1470) beats t5 (1530): E = 1 / (1 + 10^(60/400)) = 0.4145013213281905, so t6 gains
    60 × 1 × (1 − E) = 35.12992072030857, and the game and the explanation's ``shown`` both say 35.13."""

    def duel(first: str, second: str) -> int:
        return _rated(
            api, game_body("tokaido", [player(first, 60, achievements=1), player(second, 50, achievements=1)])
        )

    duel("t5", "t6")
    second = duel("t6", "t5")
    changes = {c["player"]: c for c in api.get(f"/api/v1/games/{second}/").json()["rating_changes"]}
    seats = {s["player"]: s for s in APIClient().get(f"/api/v1/games/{second}/explain/").json()["seats"]}
    assert abs(seats["t6"]["delta"] - 35.12992072030857) <= 1e-9
    assert seats["t6"]["shown"] == {"before": 1470.0, "delta": 35.13} and seats["t5"]["shown"] == {
        "before": 1530.0,
        "delta": -35.13,
    }
    for handle, seat in seats.items():
        assert seat["shown"] == {"before": changes[handle]["before"], "delta": changes[handle]["delta"]}
        assert abs(seat["terms_sum"] + seat["quit_penalty"] + seat["floor"] - seat["delta"]) <= 1e-9
