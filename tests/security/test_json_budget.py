"""Issue 25 §1.3 and §2: what an API body may expand to is bounded before it is decoded, and a key sent twice is
refused by name. The numbers are worked by hand in infra/api/json_budget.py's docstring."""

from __future__ import annotations

import json

import pytest

from infra.api.json_budget import blank_strings, depth, over_budget, value_count


def test_the_worked_examples():
    structure = blank_strings(b'{"a": [1, 2, {"b": "x,y"}]}')
    assert structure == b'{"": [1, 2, {"": ""}]}'
    assert value_count(structure) == 6 and depth(structure) == 3
    assert value_count(blank_strings(b"[[],[],[]]")) == 7  # 4 values, plus one per empty container (3)
    assert value_count(b"") == 0


def test_brackets_and_commas_inside_strings_are_text():
    structure = blank_strings(json.dumps({"note": "[[[{,,,}]]]", "x": 'a "quoted" \\ one'}).encode())
    assert value_count(structure) == 3 and depth(structure) == 1


def test_an_unterminated_string_of_escaped_quotes_is_one_pass():
    # '"' then a million '\\"': a naive pattern retried from every quote (quadratic); here one match to the end.
    assert blank_strings(b'"' + b'\\"' * 1_000_000) == b'""'


@pytest.mark.parametrize(
    ("raw", "values", "deep", "why"),
    [
        (b"[" + b",".join([b"[]"] * 100) + b"]", 150, 40, "more than 150 JSON values"),
        (b"[" * 41 + b"]" * 41, 1000, 40, "nested more than 40 levels deep"),
        (b"[" * 40 + b"]" * 40, 1000, 40, None),
        (json.dumps({"games": [{"table_id": "T-1", "players": [{"player": "a", "score": 1}]}]}).encode(), 9, 40, None),
    ],
)
def test_over_budget(raw, values, deep, why):
    assert over_budget(raw, max_values=values, max_depth=deep) == why


@pytest.mark.django_db
def test_a_batch_of_empty_arrays_is_refused_before_it_is_built(api):
    body = b'{"games": [' + b",".join([b"[]"] * 300_000) + b"]}"  # 900 KB: under the 4 MiB cap
    response = api.generic("POST", "/api/v1/games/batch/", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "body_too_complex"


@pytest.mark.django_db
def test_a_batch_is_held_to_4_mib():
    from django.conf import settings

    assert settings.API_MAX_BATCH_BODY_BYTES == 4 * 1024 * 1024


@pytest.mark.django_db
def test_each_game_of_a_batch_is_held_to_a_single_games_budget(api, settings, make_game):
    settings.API_MAX_JSON_VALUES = 50
    from tests.conftest import player

    small = make_game("tokaido", [player("ann", 10, achievements=1), player("bob", 5, achievements=0)])
    heavy = make_game(
        "tokaido",
        [player("cat", 10, achievements=1), player("dan", 5, achievements=0)],
        details={"noise": list(range(60))},
    )
    response = api.post("/api/v1/games/batch/", {"games": [small, heavy]}, format="json")
    assert response.status_code == 200, response.content
    results = response.json()["results"]
    assert results[1]["status_code"] == 400 and results[1]["body"]["error"]["code"] == "body_too_complex"
    assert results[0]["status_code"] == 201, results[0]


@pytest.mark.django_db
def test_a_key_sent_twice_is_refused_by_name(api):
    body = b'{"table_id": "T-1", "game": "tokaido", "players": [], "table_id": "T-2"}'
    response = api.generic("POST", "/api/v1/games/", body, content_type="application/json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "duplicate_key" and error["fields"] == {"table_id": "Sent more than once."}
