"""Organising a tournament (docs/tournaments.md): the gates at registration and again at the start, the scope, a
game's link to its table refused when it does not fit, and a round closed at its deadline (no-shows lose)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from arena.models import Game, Player
from arena.players import players_fetch_or_create
from ratings.models import Rating, Reputation
from tests.db.tournaments.conftest import TOURNAMENTS, client_for, create, register, tokaido_game
from tournaments.models import Entry
from tournaments.rounds import rounds_overdue
from tournaments.services import tournaments_due


def _rating(handle: str, elo: float) -> None:
    player = players_fetch_or_create([handle])[handle]
    Rating.objects.update_or_create(player=player, title="tokaido", defaults={"elo": elo, "games": 10})


def test_create_takes_the_titles_sizes_and_refuses_what_cannot_be_played(organiser):
    assert create(organiser, table_size=None)["table_size"] == 4  # Tokaido's recommended 4 (range 2-5)
    too_big = organiser.post(
        TOURNAMENTS,
        {"name": "x", "game": "tokaido", "rounds": 3, "table_size": 6, "starts_at": "2030-01-01T00:00:00Z"},
        format="json",
    )
    assert too_big.status_code == 400 and "table_size" in too_big.json()["error"]["fields"]
    coop = organiser.post(
        TOURNAMENTS, {"name": "x", "game": "hanabi", "rounds": 3, "starts_at": "2030-01-01T00:00:00Z"}, format="json"
    )
    assert coop.status_code == 400 and coop.json()["error"]["code"] == "cooperative_game"
    typo = organiser.post(
        TOURNAMENTS, {"name": "x", "game": "tokaido", "round": 3, "starts_at": "2030-01-01T00:00:00Z"}, format="json"
    )
    assert typo.status_code == 400 and set(typo.json()["error"]["fields"]) == {"round", "rounds"}
    knockout = organiser.post(
        TOURNAMENTS,
        {"name": "x", "game": "tokaido", "format": "knockout", "rounds": 3, "starts_at": "2030-01-01T00:00:00Z"},
        format="json",
    )
    assert knockout.status_code == 400 and set(knockout.json()["error"]["fields"]) == {"format"}


def test_the_scope_is_needed_and_a_tournament_is_its_servers_own(organiser):
    tid = create(organiser)["id"]
    without = client_for(scopes=("games", "matchmaking"))
    assert without.post(TOURNAMENTS, {}, format="json").json()["error"]["code"] == "missing_scope"
    other = client_for()
    assert other.get(f"{TOURNAMENTS}{tid}/").status_code == 404
    assert register(other, tid, "x").json()["error"]["code"] == "tournament_not_found"


def test_gates_at_registration(organiser):
    tid = create(organiser, rating_min=1400, min_reputation=80, max_players=4)["id"]
    banned = players_fetch_or_create(["cheat"])["cheat"]
    banned.status = Player.Status.BANNED
    banned.save()
    assert register(organiser, tid, "cheat").json()["error"]["code"] == "player_banned"
    quitter = players_fetch_or_create(["quitter"])["quitter"]
    Reputation.objects.create(player=quitter, cooldown_until=timezone.now() + timedelta(minutes=10))
    refused = register(organiser, tid, "quitter")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "cooldown"
    assert 0 < refused.json()["error"]["retry_after"] <= 601
    flaky = players_fetch_or_create(["flaky"])["flaky"]
    Reputation.objects.create(player=flaky, recent="fffffqqqqq")  # 10 games, 5 quit: 50 %
    assert register(organiser, tid, "flaky").json()["error"]["code"] == "reputation_too_low"
    _rating("weak", 1300)
    assert register(organiser, tid, "weak").json()["error"]["code"] == "rating_out_of_range"
    for handle in ("new1", "new2", "new3", "new4"):  # no games yet: Elo 1500, no reputation to judge
        assert register(organiser, tid, handle).status_code == 201
    assert register(organiser, tid, "new5").json()["error"]["code"] == "tournament_full"
    assert organiser.delete(f"{TOURNAMENTS}{tid}/players/new4/").status_code == 204
    assert organiser.delete(f"{TOURNAMENTS}{tid}/players/new4/").status_code == 404
    assert register(organiser, tid, "new5").status_code == 201
    assert organiser.get(f"{TOURNAMENTS}{tid}/").json()["players"] == ["new1", "new2", "new3", "new5"]


def test_gates_again_at_the_start(organiser):
    tid = create(organiser, rating_min=1400, table_size=3)["id"]
    for handle in ("a", "b", "c", "d"):
        _rating(handle, 1450)
        assert register(organiser, tid, handle).status_code == 201
    Rating.objects.filter(player__handle="d").update(elo=1390)  # fell below after registering
    shown = organiser.post(f"{TOURNAMENTS}{tid}/start/").json()
    assert shown["status"] == "running" and shown["players"] == ["a", "b", "c"]
    assert shown["left"] == [{"player": "d", "status": "removed", "reason": "rating_out_of_range"}]
    assert shown["rounds"][0]["tables"][0]["seats"] and "d" not in shown["rounds"][0]["tables"][0]["seats"]
    assert register(organiser, tid, "e").json()["error"]["code"] == "tournament_started"
    assert Entry.objects.get(player__handle="a").start_elo == 1450


def test_beat_starts_a_due_tournament_and_cancels_one_too_small(organiser):
    due = create(organiser, starts_at="2020-01-01T00:00:00Z", table_size=3)["id"]
    small = create(organiser, starts_at="2020-01-01T00:00:00Z", table_size=3)["id"]
    later = create(organiser)["id"]
    for handle in ("a", "b", "c"):
        register(organiser, due, handle)
    register(organiser, small, "a")
    assert tournaments_due() == [due]
    states = {t: organiser.get(f"{TOURNAMENTS}{t}/").json()["status"] for t in (due, small, later)}
    assert states == {due: "running", small: "cancelled", later: "registering"}


def _seven_players_started(organiser) -> tuple[int, list[dict]]:
    tid = create(organiser, rounds=2, round_minutes=30)["id"]
    for handle in ("a", "b", "c", "d", "e", "f", "g"):
        register(organiser, tid, handle)
    shown = organiser.post(f"{TOURNAMENTS}{tid}/start/").json()
    return tid, shown["rounds"][0]["tables"]


def test_a_game_must_fit_its_table(organiser):
    tid, tables = _seven_players_started(organiser)
    four = next(t for t in tables if len(t["seats"]) == 4)
    assert sorted(len(t["seats"]) for t in tables) == [3, 4]  # 7 = 4 + 3, no bye
    scores = dict(zip(four["seats"], (90, 80, 70, 60), strict=True))
    wrong = tokaido_game({"id": four["id"], "seats": four["seats"][:3]}, scores)
    refused = organiser.post("/api/v1/games/", wrong, format="json")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "tournament_table_mismatch"
    assert not Game.objects.exists()  # a refused link records nothing
    stranger = client_for()
    foreign = stranger.post("/api/v1/games/", tokaido_game(four, scores), format="json")
    assert foreign.status_code == 404 and foreign.json()["error"]["code"] == "tournament_table_not_found"
    body = tokaido_game(four, scores)
    assert organiser.post("/api/v1/games/", body, format="json").status_code == 201
    assert organiser.post("/api/v1/games/", body, format="json").status_code == 200  # a resend
    again = organiser.post("/api/v1/games/", tokaido_game(four, scores), format="json")  # another game, same table
    assert again.status_code == 409 and again.json()["error"]["code"] == "tournament_table_recorded"
    shown = organiser.get(f"{TOURNAMENTS}{tid}/rounds/1/").json()
    recorded = next(t for t in shown["tables"] if t["id"] == four["id"])
    assert recorded["places"] == [1, 2, 3, 4] and recorded["game"] is not None


def test_the_deadline_closes_the_round_and_no_shows_lose(organiser):
    tid, tables = _seven_players_started(organiser)
    four = next(t for t in tables if len(t["seats"]) == 4)
    three = next(t for t in tables if len(t["seats"]) == 3)
    scores = dict(zip(four["seats"], (90, 80, 70, 60), strict=True))
    assert organiser.post("/api/v1/games/", tokaido_game(four, scores), format="json").status_code == 201
    assert rounds_overdue() == []  # not yet
    assert len(rounds_overdue(now=timezone.now() + timedelta(minutes=31))) == 1
    shown = organiser.get(f"{TOURNAMENTS}{tid}/").json()
    assert shown["round"] == 2 and shown["rounds"][0]["tables"][1]["no_show"] is True
    points = {line["player"]: line["points"] for line in shown["standings"]}
    # The played table pays 6, 4, 2, 0 by place; the table with no result 0 to every seat.
    assert [points[p] for p in four["seats"]] == [6, 4, 2, 0]
    assert [points[p] for p in three["seats"]] == [0, 0, 0]
    late = organiser.post("/api/v1/games/", tokaido_game(three, dict.fromkeys(three["seats"], 50)), format="json")
    assert late.status_code == 409 and late.json()["error"]["code"] == "tournament_table_closed"
