"""A game names its tournament table (``tournament_table``, docs/tournaments.md "Rounds, results and deadlines"):
declared in the schema on every game body, refused clearly when it is no table's id, and taken per game by the
batch endpoint with what each game alone would have been answered."""

from __future__ import annotations

import pytest

from arena.models import Game
from tests.db.tournaments.conftest import TOURNAMENTS, client_for, create, register, tokaido_game

BATCH = "/api/v1/games/batch/"


def _started(organiser, handles: tuple[str, ...], rounds: int = 2) -> tuple[int, list[dict]]:
    tid = create(organiser, rounds=rounds)["id"]
    for handle in handles:
        assert register(organiser, tid, handle).status_code == 201
    shown = organiser.post(f"{TOURNAMENTS}{tid}/start/").json()
    return tid, shown["rounds"][0]["tables"]


def _scores(table: dict) -> dict[str, int]:
    return dict(zip(table["seats"], (90, 80, 70, 60), strict=False))


@pytest.mark.django_db
def test_the_schema_declares_tournament_table_on_every_game_body_with_an_example(anon):
    schemas = anon.get("/api/schema/?format=json").json()["components"]["schemas"]
    mapping = schemas["GameInRequest"]["discriminator"]["mapping"]
    for ref in mapping.values():
        field = schemas[ref.rsplit("/", 1)[1]]["properties"]["tournament_table"]
        assert field["type"] == ["integer", "null"] and field["minimum"] == 1
        assert field["examples"] and all(isinstance(e, int) and e >= 1 for e in field["examples"])
        assert "tournament_table" not in schemas[ref.rsplit("/", 1)[1]]["required"]  # optional
    batch_items = schemas["GameBatchInRequest"]["properties"]["games"]["items"]
    assert batch_items == {"$ref": "#/components/schemas/GameInRequest"}  # the batch takes the same bodies


@pytest.mark.django_db
@pytest.mark.parametrize("value", [0, -3, "12", True, 1.5, 2**63])
def test_a_value_that_is_no_tables_id_is_a_400_naming_the_field(organiser, value):
    _, tables = _started(organiser, ("a", "b", "c", "d"))
    body = tokaido_game(tables[0], _scores(tables[0]))
    body["tournament_table"] = value
    refused = organiser.post("/api/v1/games/", body, format="json")
    assert refused.status_code == 400, refused.json()
    assert refused.json()["error"]["code"] == "invalid_input"
    assert set(refused.json()["error"]["fields"]) == {"tournament_table"}
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_null_is_an_ordinary_game(organiser):
    tid, tables = _started(organiser, ("a", "b", "c", "d"))
    body = tokaido_game(tables[0], _scores(tables[0]))
    body["tournament_table"] = None
    assert organiser.post("/api/v1/games/", body, format="json").status_code == 201
    (table,) = organiser.get(f"{TOURNAMENTS}{tid}/rounds/1/").json()["tables"]
    assert table["id"] == tables[0]["id"] and table["game"] is None  # recorded, but for no table


@pytest.mark.django_db(transaction=True)  # the round's last result pairs the next after its commit
def test_the_batch_takes_tournament_table_per_game_each_answered_alone(organiser):
    tid, tables = _started(organiser, ("a", "b", "c", "d", "e", "f", "g"))  # 7 = 4 + 3
    four = next(t for t in tables if len(t["seats"]) == 4)
    three = next(t for t in tables if len(t["seats"]) == 3)
    plain = tokaido_game({"id": None, "seats": ["x", "y"]}, {"x": 50, "y": 40})
    del plain["tournament_table"]
    wrong_players = tokaido_game({"id": three["id"], "seats": three["seats"][:2]}, _scores(three))
    foreign = tokaido_game(four, _scores(four))
    foreign["tournament_table"] = 2**40  # nobody's table
    bad_value = tokaido_game(four, _scores(four))
    bad_value["tournament_table"] = "four"
    four_game = tokaido_game(four, _scores(four))
    first = organiser.post(BATCH, {"games": [four_game, plain, wrong_players, foreign, bad_value]}, format="json")
    assert first.status_code == 200
    results = first.json()["results"]
    assert [r["status_code"] for r in results] == [201, 201, 400, 404, 400]
    assert [r["body"].get("error", {}).get("code") for r in results[2:]] == [
        "tournament_table_mismatch",
        "tournament_table_not_found",
        "invalid_input",
    ]
    assert Game.objects.count() == 2  # the refused links recorded nothing
    round_1 = organiser.get(f"{TOURNAMENTS}{tid}/rounds/1/").json()
    recorded = {t["id"]: t for t in round_1["tables"]}
    assert recorded[four["id"]]["game"] == results[0]["body"]["id"]
    assert recorded[four["id"]]["places"] == [1, 2, 3, 4]
    assert recorded[three["id"]]["game"] is None and round_1["closed_at"] is None

    three_game = tokaido_game(three, _scores(three))
    another_for_four = tokaido_game(four, _scores(four))  # a new table_id: another game for a recorded table
    second = organiser.post(BATCH, {"games": [four_game, another_for_four, three_game]}, format="json")
    results = second.json()["results"]
    assert [r["status_code"] for r in results] == [200, 409, 201]  # a resend answers as a resend
    assert results[0]["body"]["id"] == recorded[four["id"]]["game"]
    assert results[1]["body"]["error"]["code"] == "tournament_table_recorded"
    shown = organiser.get(f"{TOURNAMENTS}{tid}/").json()
    assert shown["round"] == 2 and shown["rounds"][0]["closed_at"] is not None  # the round's last result


@pytest.mark.django_db
def test_a_batch_game_naming_another_servers_table_is_its_own_404(organiser):
    _, tables = _started(organiser, ("a", "b", "c", "d"))
    stranger = client_for()
    answer = stranger.post(BATCH, {"games": [tokaido_game(tables[0], _scores(tables[0]))]}, format="json")
    (result,) = answer.json()["results"]
    assert answer.status_code == 200 and result["status_code"] == 404
    assert result["body"]["error"]["code"] == "tournament_table_not_found"
