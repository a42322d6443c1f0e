"""Single elimination through the API (docs/tournaments.md#elimination), the docs' worked example played out:
six Tokaido players at two-seat tables, seeded by start Elo p1 1600 ... p6 1350.

By hand: a bracket of 8 slots, seeds in slot order 1, 8, 4, 5, 2, 7, 3, 6, so round 1 is p4 v p5 and p3 v p6, with
byes to seeds 1 and 2 (8 - 6 = 2 byes, to the top). p5 beats p4; p3 and p6 tie (same score, same achievements):
the higher seed, p3, goes on. Round 2: p1 v p5 and p2 v p3; p5 and p2 win. The final p2 v p5: p2 wins. Points are
the rounds advanced: p2 3 (bye, two wins), p5 2, p1 1 (the bye), p3 1 (the tie), p4 0, p6 0; level players by
seed: p2, p5, p1, p3, p4, p6.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.players import players_fetch_or_create
from ratings.models import Rating
from tests.db.tournaments.conftest import TOURNAMENTS, create, register, tokaido_game
from tournaments.rounds import rounds_overdue

pytestmark = pytest.mark.django_db(transaction=True)  # each next round is paired after the last result's commit
ELO = {"p1": 1600, "p2": 1550, "p3": 1500, "p4": 1450, "p5": 1400, "p6": 1350}


def _play(organiser, tid: int, number: int, scores: dict[str, int]) -> list[dict]:
    """Record every table of round ``number`` with these scores; returns the round as shown before."""
    shown = organiser.get(f"{TOURNAMENTS}{tid}/rounds/{number}/").json()
    for table in shown["tables"]:
        body = tokaido_game(table, {p: scores[p] for p in table["seats"]})
        assert organiser.post("/api/v1/games/", body, format="json").status_code == 201
    return shown


def test_six_players_play_the_bracket_of_the_worked_example(organiser):
    for handle, elo in ELO.items():
        player = players_fetch_or_create([handle])[handle]
        Rating.objects.create(player=player, title="tokaido", elo=elo, games=10)
    created = create(organiser, format="elimination", rounds=5)
    tid = created["id"]
    assert created["format"] == "elimination" and created["table_size"] == 2
    for handle in ELO:
        assert register(organiser, tid, handle).status_code == 201
    started = organiser.post(f"{TOURNAMENTS}{tid}/start/").json()
    assert started["rounds_planned"] == 3  # the bracket's: ceil(log2 6)

    one = _play(organiser, tid, 1, {"p4": 50, "p5": 60, "p3": 70, "p6": 70})
    assert sorted(sorted(t["seats"]) for t in one["tables"]) == [["p3", "p6"], ["p4", "p5"]]
    assert one["byes"] == ["p1", "p2"]
    reasons = {tuple(sorted(t["seats"])): t["explanation"]["reasons"][0] for t in one["tables"]}
    assert reasons == {("p4", "p5"): "bracket: seed 4 v seed 5", ("p3", "p6"): "bracket: seed 3 v seed 6"}

    two = _play(organiser, tid, 2, {"p1": 40, "p5": 45, "p2": 80, "p3": 30})
    assert sorted(sorted(t["seats"]) for t in two["tables"]) == [["p1", "p5"], ["p2", "p3"]] and two["byes"] == []

    final = _play(organiser, tid, 3, {"p2": 90, "p5": 20})
    assert [sorted(t["seats"]) for t in final["tables"]] == [["p2", "p5"]]

    shown = organiser.get(f"{TOURNAMENTS}{tid}/").json()
    assert shown["status"] == "finished" and shown["round"] == 3
    assert [(line["player"], line["points"]) for line in shown["standings"]] == [
        ("p2", 3),
        ("p5", 2),
        ("p1", 1),
        ("p3", 1),
        ("p4", 0),
        ("p6", 0),
    ]
    explained = organiser.get(f"{TOURNAMENTS}{tid}/standings/p2/explain/").json()
    assert [(t["round"], t["from"]) for t in explained["points"]["terms"]] == [(1, "bye"), (2, "table"), (3, "table")]
    assert explained["points"]["total"] == 3


def test_elimination_needs_two_seat_tables(organiser):
    body = {"name": "x", "format": "elimination", "rounds": 3, "starts_at": "2030-01-01T00:00:00Z"}
    wizard = organiser.post(TOURNAMENTS, {**body, "game": "wizard"}, format="json")  # 3 to 6 players
    assert wizard.status_code == 400 and set(wizard.json()["error"]["fields"]) == {"table_size"}
    three = organiser.post(TOURNAMENTS, {**body, "game": "tokaido", "table_size": 3}, format="json")
    assert three.status_code == 400 and set(three.json()["error"]["fields"]) == {"table_size"}


def test_a_no_show_sends_nobody_on_and_the_walkover_round_closes_at_once(organiser):
    """Three players, seeds q1 > q2 > q3: 4 slots (1, 4, 2, 3), so q1 has a bye and q2 v q3 play. Nobody records
    it by the deadline: nobody goes on, q1 walks over in round 2 (a round of walkovers only, closed at once), and
    the tournament is finished with q1 on 2 points (the bye, the walkover), q2 and q3 on 0."""
    for handle, elo in (("q1", 1600), ("q2", 1500), ("q3", 1400)):
        Rating.objects.create(player=players_fetch_or_create([handle])[handle], title="tokaido", elo=elo, games=10)
    tid = create(organiser, format="elimination", rounds=1, round_minutes=30)["id"]
    for handle in ("q1", "q2", "q3"):
        assert register(organiser, tid, handle).status_code == 201
    started = organiser.post(f"{TOURNAMENTS}{tid}/start/").json()
    assert started["rounds_planned"] == 2
    (table,) = started["rounds"][0]["tables"]
    assert sorted(table["seats"]) == ["q2", "q3"] and started["rounds"][0]["byes"] == ["q1"]
    assert len(rounds_overdue(now=timezone.now() + timedelta(minutes=31))) == 1
    shown = organiser.get(f"{TOURNAMENTS}{tid}/").json()
    assert shown["status"] == "finished" and shown["rounds"][1]["tables"] == [] and shown["rounds"][1]["byes"] == ["q1"]
    assert [(line["player"], line["points"]) for line in shown["standings"]] == [("q1", 2), ("q2", 0), ("q3", 0)]
