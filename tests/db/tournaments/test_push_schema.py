"""The ``tournament.table_formed`` push is what the schema's webhook says (issue 29; its data was "any object"):
a receiver can validate each push against the 3.1 document, and every field the webhook names is the round's."""

from __future__ import annotations

from datetime import datetime

import jsonschema
import pytest

from matchmaking.models import ServerCallback
from tests.db.matchmaking.receiver import receiver
from tests.db.tournaments.conftest import TOURNAMENTS, create, register

pytestmark = pytest.mark.django_db(transaction=True)  # pushes go out after the start's commit


def test_each_pushed_table_validates_against_the_webhook_and_matches_the_round(organiser, anon):
    schema = anon.get("/api/schema/?format=json").json()
    operation = schema["webhooks"]["tournament.table_formed"]["post"]
    body_ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    envelope = schema["components"]["schemas"][body_ref.rsplit("/", 1)[1]]
    data_ref = envelope["properties"]["data"]["$ref"]
    data = schema["components"]["schemas"][data_ref.rsplit("/", 1)[1]]
    assert set(data["required"]) == {"tournament", "round", "deadline", "table"}  # no longer "any object"
    validator = jsonschema.Draft202012Validator({"$ref": body_ref, "components": schema["components"]})

    tid = create(organiser, name="Push shape", rounds=2)["id"]
    for i in range(1, 9):
        assert register(organiser, tid, f"ps{i}").status_code == 201
    with receiver() as box:
        ServerCallback.objects.create(server=organiser.server, url=box.url)
        assert organiser.post(f"{TOURNAMENTS}{tid}/start/").status_code == 200
        got = box.wait_for(2)
    round_1 = organiser.get(f"{TOURNAMENTS}{tid}/rounds/1/").json()
    tables = {t["id"]: t for t in round_1["tables"]}
    assert len(got) == 2 == len(tables)  # 8 players at 4 seats: two tables, one push each
    for item in got:
        validator.validate(item.json)
        pushed = item.json["data"]
        table = tables[pushed["table"]["id"]]
        assert pushed["tournament"] == {"id": tid, "name": "Push shape", "game": "tokaido"}
        assert pushed["round"] == 1
        assert datetime.fromisoformat(pushed["deadline"]) == datetime.fromisoformat(round_1["deadline"])
        assert pushed["table"]["board"] == table["board"]
        assert pushed["table"]["seats"] == table["seats"] and len(table["seats"]) == 4
        assert pushed["table"]["seat_1"] == table["seats"][0]
