"""Issue 26 §3: the document is OpenAPI 3.1 as a strict validator reads it, with no 3.0 ``nullable`` left, one
``Error`` model referenced by every error response, a webhook per event type and consistent tags."""

from __future__ import annotations

import json

import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator

from matchmaking.events import EVENT_TYPES

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(anon) -> dict:
    return anon.get("/api/schema/?format=json").json()


def test_a_strict_31_validator_passes_the_document(schema):
    assert schema["openapi"].startswith("3.1")
    errors = [str(error.message) for error in OpenAPIV31SpecValidator(schema).iter_errors()]
    assert errors == []


def test_no_nullable_only_null_types(schema):
    text = json.dumps(schema)
    assert '"nullable"' not in text
    report = schema["components"]["schemas"]["ReportOut"]["properties"]
    assert report["game_id"]["type"] == ["integer", "null"]
    ticket = schema["components"]["schemas"]["TicketOut"]["properties"]
    assert ticket["request_id"]["type"] == ["string", "null"]


def test_every_error_response_references_the_one_error_model(schema):
    models = schema["components"]["schemas"]
    assert "Error" in models and "ErrorOut" not in models
    codes = set(models["Error"]["properties"]["error"]["properties"]["code"]["enum"])
    seen = 0
    for item in schema["paths"].values():
        for operation in item.values():
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    seen += 1
                    assert response["content"]["application/json"]["schema"] == {
                        "$ref": "#/components/schemas/Error"
                    }, (operation["operationId"], status)
                    assert set(response["x-error-codes"]) <= codes
    assert seen > 50 and {"table_conflict", "callback_not_found", "party_too_large"} <= codes


def test_each_event_type_is_a_webhook(schema):
    assert set(schema["webhooks"]) == set(EVENT_TYPES)
    for name, hook in schema["webhooks"].items():
        body = hook["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        envelope = schema["components"]["schemas"][body]
        assert set(envelope["required"]) == {"id", "type", "created_at", "api_version", "data"}, name
        assert envelope["properties"]["type"]["enum"] == [name]


def test_tags_are_the_resource_of_each_operation(schema):
    tags = {o["operationId"]: o["tags"] for item in schema["paths"].values() for o in item.values()}
    assert tags["games_explain"] == tags["games_create"] == tags["games_batch"] == ["games"]
    assert tags["reports_create"] == ["reports"] and tags["deliveries_list"] == tags["callback_ping"] == ["callbacks"]
    assert tags["players_history"] == ["players"] and tags["matchmaking_tickets_list"] == ["matchmaking"]


def test_team_only_where_a_title_has_teams(schema):
    player_of = {
        name: schema["components"]["schemas"][f"GameIn_{name}"]["properties"]["players"]["items"]
        for name in ("tokaido", "nile", "wizard", "railroad_ink", "spades", "hanabi")
    }
    assert [name for name, item in player_of.items() if "team" in item["properties"]] == ["spades", "hanabi"]
