"""A whole 5-round Swiss of 13 Tokaido players through the API, as a game server lives it: create, register,
start, receive each round's tables as signed pushes on a loopback receiver, record each table's game naming
``tournament_table``, read the standings and their explanations; a ring voided after round 2.

Every figure is checked against the rules of docs/tournaments.md worked out here, from the places the games gave,
never against the code's own answer: points 2·(n−place), Buchholz as the sum of table-mates' points, 13 = 4+3+3+3
(12 = 4+4+4) with no bye, first seats within one of each other, and the void's rule: a player who finished ahead
of the voided player at a shared table loses 2 points for it, a player behind keeps theirs.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from typing import Any

import pytest

from arena.models import Game, Player
from arena.players import player_status_ban
from matchmaking import push
from matchmaking.models import ServerCallback
from moderation.services.penalties import games_void
from tests.db.matchmaking.receiver import receiver
from tests.db.tournaments.conftest import TOURNAMENTS, create, register, tokaido_game

pytestmark = pytest.mark.django_db(transaction=True)  # pushes and the void's re-scoring go out after commits
PLAYERS = [f"p{i:02d}" for i in range(1, 14)]


def _hand_points(played: list[dict[str, Any]], out: set[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Points and Buchholz from the recorded tables, by the rules (the voided taken out of every table)."""
    points: dict[str, int] = defaultdict(int)
    mates: dict[str, list[str]] = defaultdict(list)
    for table in played:
        kept = [p for p in table["seats"] if p not in out]
        order = sorted(kept, key=lambda p: table["places"][p])
        n = len(kept)
        for place, p in enumerate(order, start=1):
            points[p] += 2 * (n - place)
            mates[p].extend(q for q in kept if q != p)
    buchholz = {p: sum(points[q] for q in mates[p]) for p in points}
    return dict(points), buchholz


def _round_pushes(box: Any, secret: str, seen: int, tables: int) -> list[dict[str, Any]]:
    got = box.wait_for(seen + tables)[seen:]
    assert len(got) == tables
    for item in got:
        assert item.json["type"] == "tournament.table_formed" == item.headers["Arena-Event"]
        assert item.headers["X-Arena-Delivery"] == item.json["id"]
        assert push.verify(secret, item.headers["X-Arena-Signature"], item.body)
    return [item.json["data"] for item in got]


def test_thirteen_players_five_rounds_pushed_recorded_voided(organiser):
    rng = random.Random(29)
    tournament = create(organiser, round_minutes=120)
    tid = tournament["id"]
    assert tournament["table_size"] == 4 and tournament["status"] == "registering"  # Tokaido's recommended size
    for handle in PLAYERS:
        assert register(organiser, tid, handle).status_code == 201
    assert register(organiser, tid, "p01").status_code == 200  # registering again is a no-op
    played: list[dict[str, Any]] = []
    out: set[str] = set()
    seen = 0
    with receiver() as box:
        callback = ServerCallback.objects.create(server=organiser.server, url=box.url)
        started = organiser.post(f"{TOURNAMENTS}{tid}/start/")
        assert started.status_code == 200 and started.json()["round"] == 1
        for number in range(1, 6):
            # Round 3 was paired as round 2's last game came in, before the void: 13 still; then 12.
            expected = [3, 3, 3, 4] if number <= 3 else [4, 4, 4]
            gone = out if number > 3 else set()
            pushes = _round_pushes(box, callback.secret, seen, len(expected))
            seen += len(expected)
            assert {p["round"] for p in pushes} == {number}
            assert sorted(len(p["table"]["seats"]) for p in pushes) == expected
            seated = [h for p in pushes for h in p["table"]["seats"]]
            assert sorted(seated) == sorted(set(PLAYERS) - gone)  # everyone once, nobody voided, no bye
            detail = organiser.get(f"{TOURNAMENTS}{tid}/rounds/{number}/").json()
            assert detail["byes"] == [] and len(detail["tables"]) == len(expected)
            for table in detail["tables"]:
                assert table["explanation"]["seat_1"]["player"] == table["seats"][0]
                assert any(r.startswith("score group") for r in table["explanation"]["reasons"])
            for data in pushes:
                table = data["table"]
                scores = dict(zip(table["seats"], rng.sample(range(30, 120), len(table["seats"])), strict=True))
                response = organiser.post("/api/v1/games/", tokaido_game(table, scores), format="json")
                assert response.status_code == 201, response.json()
                places = {h: sorted(scores.values(), reverse=True).index(s) + 1 for h, s in scores.items()}
                played.append(
                    {"round": number, "seats": table["seats"], "places": places, "game": response.json()["id"]}
                )
            if number == 2:  # a ring: p05 banned, their round-1 game voided
                victim = "p05"
                game = next(t for t in played if t["round"] == 1 and victim in t["seats"])
                before, _ = _hand_points(played, out)
                player_status_ban(player=Player.objects.get(handle=victim))
                games_void(moderator=None, games=[Game.objects.get(pk=game["game"])])
                out.add(victim)
                after, _ = _hand_points(played, out)
                shown = organiser.get(f"{TOURNAMENTS}{tid}/").json()
                (void,) = shown["voids"]
                assert void["players"] == [victim] and void["game"] == game["game"]
                expected_changes = []
                for p in sorted(set(after)):
                    lost = 2 * sum(
                        1
                        for t in played
                        if victim in t["seats"] and p in t["seats"] and t["places"][p] < t["places"][victim]
                    )
                    assert after[p] == before[p] - lost
                    if lost:
                        expected_changes.append({"player": p, "before": before[p], "after": after[p]})
                assert void["changes"] == expected_changes
                assert victim not in [line["player"] for line in shown["standings"]]
    final = organiser.get(f"{TOURNAMENTS}{tid}/").json()
    assert final["status"] == "finished" and final["round"] == 5 and len(final["rounds"]) == 5
    points, buchholz = _hand_points(played, out)
    standings = final["standings"]
    assert {line["player"]: line["points"] for line in standings} == points
    assert {line["player"]: line["buchholz"] for line in standings} == buchholz
    keys = [(line["points"], line["buchholz"]) for line in standings]
    assert keys == sorted(keys, reverse=True)
    # Rounds 1-2 could always avoid repeats (13 players have 12 others each): none.
    mates: dict[str, set[str]] = defaultdict(set)
    for table in (t for t in played if t["round"] <= 2):
        for p in table["seats"]:
            assert not (mates[p] & (set(table["seats"]) - {p}))
        for p in table["seats"]:
            mates[p] |= set(table["seats"]) - {p}
    firsts = Counter(t["seats"][0] for t in played)  # seat 1 shared out: 18 first seats, the 12 who stayed within one
    assert max(firsts.values()) - min(firsts.get(p, 0) for p in PLAYERS if p not in out) <= 1
    for line in standings:
        shown = organiser.get(f"{TOURNAMENTS}{tid}/standings/{line['player']}/explain/").json()
        assert shown["points"]["total"] == sum(t["points"] for t in shown["points"]["terms"]) == line["points"]
        assert shown["buchholz"]["total"] == sum(t["points"] for t in shown["buchholz"]["terms"])
        assert all(t["table_mate"] != "p05" for t in shown["buchholz"]["terms"])
