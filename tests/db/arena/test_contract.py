"""The OpenAPI contract tells the truth (issue 16 §3), proved against a live server:

- Schemathesis (4.32, its own runner, the ``st`` command) over ``/api/schema/``: every phase (examples, coverage,
  fuzzing, stateful), every check, 0 failures, with ``schemathesis.toml`` (which says where a rule JSON Schema
  cannot express allows a documented 400). Bounded for CI by ``--max-examples``: a couple of minutes.
- A client generated from the schema by openapi-python-client 0.29 records a Tokaido game (its ``achievements``
  come from the schema's oneOf), reads it, sends a typed batch of its models, opens a ticket and cancels it; and
  it runs the README's API tour, the callback and deliveries included.
- The schema's own promises: links between operations, security on every key operation, the status table.

``ARENA_CONTRACT_EXAMPLES`` raises the examples per operation for a longer run by hand.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.api.contract import ERRORS
from arena.models import SCOPES
from arena.servers import game_server_create

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
EXAMPLES = int(os.environ.get("ARENA_CONTRACT_EXAMPLES", "8"))


@pytest.fixture(autouse=True)
def _embedded(settings):
    """The embedded mode on either database: tasks in-process, a pass on a ticket's read; the public reads not
    throttled, since the fuzzer reads far faster than any client."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.MATCHMAKING_PASS_ON_REQUEST = True
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"public": "1000000/min"}}


def _schema(client) -> dict:
    return client.get("/api/schema/?format=json").json()


def test_every_key_operation_requires_the_key_and_every_public_one_none(anon, db):
    schema = _schema(anon)
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            public = (
                path.startswith(("/api/v1/leaderboards/", "/api/v1/players/", "/api/v1/seasons/"))
                and "preferences" not in path
            ) or (
                path.endswith("/explain/")  # why a rating changed: public like the player pages
                and not path.startswith("/api/v1/tournaments/")
            )  # a server's own tournament
            assert operation["security"] == ([{}] if public else [{"ApiKey": []}]), (method, path)
            assert operation["operationId"] in ERRORS, "each operation has its row of statuses and codes"
            if not public:
                unauthorized = operation["responses"]["401"]
                assert unauthorized["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
                assert unauthorized["x-error-codes"] == ["missing_api_key", "invalid_api_key"]


def test_the_links_chain_the_calls(anon, db):
    paths = _schema(anon)["paths"]
    created = paths["/api/v1/games/"]["post"]["responses"]["201"]["links"]
    assert created["GetGame"] == {
        "operationId": "games_retrieve",
        "parameters": {"game_id": "$response.body#/id"},
        "description": "The recorded game, with its rating changes once rated.",
    }
    ticket = paths["/api/v1/matchmaking/tickets/"]["post"]["responses"]["201"]["links"]
    assert {link["operationId"] for link in ticket.values()} == {
        "matchmaking_tickets_retrieve",
        "matchmaking_tickets_cancel",
    }
    board = paths["/api/v1/leaderboards/{game}/"]["get"]["responses"]["200"]["links"]
    assert board["TopPlayer"]["parameters"] == {"player": "$response.body#/entries/0/player"}
    assert board["TopPlayerHistory"]["operationId"] == "players_history"
    assert "PlayerPreferences" in paths["/api/v1/players/{player}/"]["get"]["responses"]["200"]["links"]


@pytest.mark.postgres_pass  # the served contract, on the production shape's database when the services answer
@pytest.mark.skipif(shutil.which("st", path=str(BIN)) is None, reason="schemathesis is a dev requirement")
def test_schemathesis_every_phase_and_check_finds_nothing(live_server, tmp_path):
    # Every scope, so the preferences operations are fuzzed past their 403 missing_scope (which the table declares).
    key = game_server_create(name="schemathesis", scopes=SCOPES).key
    command = [
        str(BIN / "st"),
        "--config-file",
        str(ROOT / "schemathesis.toml"),
        "--no-color",
        "run",
        f"{live_server.url}/api/schema/",
        "-H",
        f"Authorization: Api-Key {key}",
        # Every check runs by default; "--checks all" on the command line would override the file's per-operation
        # exceptions, so it is not given.
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--workers",
        "1",
        "--max-examples",
        str(EXAMPLES),
        "--generation-database",
        "none",
        "--seed",
        "16",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-20000:]
    # The closing line: "No issues found in ...", or "N warnings in ..." (missing test data, say), never a failure.
    closing = [line for line in report.splitlines() if line.startswith("=====")][-1]
    assert "failure" not in closing and "error" not in closing, report[-5000:]
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):  # every phase ran and passed
        assert f"✅ {phase}\n" in report, phase


@pytest.mark.embedded_pass  # a client generated from the schema: the same contract whichever database serves it
@pytest.mark.skipif(
    shutil.which("openapi-python-client", path=str(BIN)) is None, reason="openapi-python-client is a dev requirement"
)
def test_a_client_generated_from_the_schema_records_reads_queues_and_cancels(live_server, tmp_path, monkeypatch):
    schema = tmp_path / "schema.json"
    import urllib.request

    with urllib.request.urlopen(f"{live_server.url}/api/schema/?format=json", timeout=60) as response:
        schema.write_bytes(response.read())
    subprocess.run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(schema),
            "--output-path",
            str(tmp_path / "arena_client"),
            "--meta",
            "none",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    client_module = importlib.import_module("arena_client")
    models = importlib.import_module("arena_client.models")
    games_create = importlib.import_module("arena_client.api.games.games_create")
    games_retrieve = importlib.import_module("arena_client.api.games.games_retrieve")
    tickets_create = importlib.import_module("arena_client.api.matchmaking.matchmaking_tickets_create")
    tickets_cancel = importlib.import_module("arena_client.api.matchmaking.matchmaking_tickets_cancel")

    key = game_server_create(name="generated-client").key
    api = client_module.AuthenticatedClient(base_url=live_server.url, token=key, prefix="Api-Key")
    game = models.TokaidoGame(
        table_id="GEN-1",
        game=models.TokaidoGameGame.TOKAIDO,
        players=[
            models.TokaidoGamePlayersItem(player="alice", ip="203.0.113.7", score=61, achievements=3),
            models.TokaidoGamePlayersItem(player="bob", ip="198.51.100.2", score=61, achievements=1),
        ],
    )
    recorded = games_create.sync_detailed(client=api, body=game)
    assert recorded.status_code == 201, recorded.content
    assert recorded.parsed.places.additional_properties == {"alice": 1, "bob": 2}

    read = games_retrieve.sync(client=api, game_id=recorded.parsed.id)
    assert (read.id, read.table_id, read.game) == (recorded.parsed.id, "GEN-1", "tokaido")

    # A typed batch (issue 26 §3): the game models themselves, no .to_dict(); each result typed, a game or an Error.
    games_batch = importlib.import_module("arena_client.api.games.games_batch")
    again = models.TokaidoGame(
        table_id="GEN-2",
        game=models.TokaidoGameGame.TOKAIDO,
        players=[
            models.TokaidoGamePlayersItem(player="alice", ip="203.0.113.7", score=50, achievements=0),
            models.TokaidoGamePlayersItem(player="bob", ip="198.51.100.2", score=50, achievements=0),
        ],
    )
    refused = models.TokaidoGame(
        table_id="GEN-1",
        game=models.TokaidoGameGame.TOKAIDO,
        players=[
            models.TokaidoGamePlayersItem(player="alice", ip="203.0.113.7", score=10, achievements=0),
            models.TokaidoGamePlayersItem(player="bob", ip="198.51.100.2", score=70, achievements=0),
        ],
    )
    batch = games_batch.sync(client=api, body=models.GameBatchInRequest(games=[game, again, refused]))
    assert [r.status_code for r in batch.results] == [200, 201, 409]
    assert isinstance(batch.results[1].body, models.GameOut) and batch.results[1].body.table_id == "GEN-2"
    assert isinstance(batch.results[2].body, models.Error)
    assert batch.results[2].body.error.code.value == "table_conflict"

    ticket = tickets_create.sync_detailed(
        client=api,
        body=models.TicketInRequest(
            player="carol", ip="192.0.2.10", game=models.TicketInRequestGame.TOKAIDO, request_id="gen-1"
        ),
    )
    assert ticket.status_code == 201, ticket.content
    assert ticket.parsed.status.value == "waiting"
    cancelled = tickets_cancel.sync(client=api, ticket_id=ticket.parsed.id)
    assert cancelled.status.value == "cancelled"


@pytest.mark.embedded_pass  # a client generated from the schema: the same contract whichever database serves it
@pytest.mark.skipif(
    shutil.which("openapi-python-client", path=str(BIN)) is None, reason="openapi-python-client is a dev requirement"
)
def test_the_generated_client_runs_the_readme_tour(live_server, tmp_path, monkeypatch, empty_tokaido_board):
    """The README's API tour (tests/db/arena/test_integrator_tour.py runs it with curl) through the generated
    client's own functions and models: record, read back, the player page, history, explanation, board, the games
    by table id, a ticket's life and list, preferences, then the callback, a ping, the deliveries and a redelivery."""
    import urllib.request

    from tests.db.matchmaking.receiver import receiver

    schema = tmp_path / "schema.json"
    with urllib.request.urlopen(f"{live_server.url}/api/schema/?format=json", timeout=60) as response:
        schema.write_bytes(response.read())
    subprocess.run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(schema),
            "--output-path",
            str(tmp_path / "tour_client"),
            "--meta",
            "none",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    monkeypatch.syspath_prepend(str(tmp_path))

    def op(name: str) -> Any:
        return importlib.import_module(f"tour_client.api.{name}")

    models = importlib.import_module("tour_client.models")
    client = importlib.import_module("tour_client")
    # The generator's default prefix (Bearer): Arena takes the key under that word too (docs/api.md).
    api = client.AuthenticatedClient(
        base_url=live_server.url, token=game_server_create(name="tour-client", scopes=SCOPES).key
    )
    seats = [
        models.TokaidoGamePlayersItem(player="alice", ip="203.0.113.7", score=61, achievements=3),
        models.TokaidoGamePlayersItem(player="bob", ip="198.51.100.2", score=61, achievements=1),
    ]
    recorded = op("games.games_create").sync_detailed(
        client=api, body=models.TokaidoGame(table_id="T-1", game=models.TokaidoGameGame.TOKAIDO, players=seats)
    )
    assert recorded.status_code == 201 and recorded.parsed.places.to_dict() == {"alice": 1, "bob": 2}
    game_id = recorded.parsed.id
    read = op("games.games_retrieve").sync(client=api, game_id=game_id).to_dict()
    assert {c["player"]: c["delta"] for c in read["rating_changes"]} == {"alice": 30.0, "bob": -30.0}
    page = op("players.players_retrieve").sync("alice", client=api).to_dict()
    assert page["ratings"]["tokaido"]["games"] == 1
    history = op("players.players_history").sync("alice", models.PlayersHistoryGame.TOKAIDO, client=api).to_dict()
    assert [e["game_id"] for e in history["entries"]] == [game_id]
    explained = op("games.games_explain").sync(game_id, client=api).to_dict()
    assert {s["player"]: s["shown"]["delta"] for s in explained["seats"]} == {"alice": 30.0, "bob": -30.0}
    board = op("leaderboards.leaderboards_retrieve").sync(models.LeaderboardsRetrieveGame.TOKAIDO, client=api)
    assert "alice" not in [e["player"] for e in board.to_dict()["entries"]]  # one game: not ranked yet
    found = op("games.games_list").sync(client=api, table_id="T-1").to_dict()
    assert [g["id"] for g in found["games"]] == [game_id]

    ticket = op("matchmaking.matchmaking_tickets_create").sync(
        client=api,
        body=models.TicketInRequest(
            player="carol", ip="192.0.2.10", game=models.TicketInRequestGame.TOKAIDO, request_id="tour-1"
        ),
    )
    assert op("matchmaking.matchmaking_tickets_retrieve").sync(ticket.id, client=api).status.value == "waiting"
    assert op("matchmaking.matchmaking_tickets_cancel").sync(ticket.id, client=api).status.value == "cancelled"
    listed = (
        op("matchmaking.matchmaking_tickets_list")
        .sync(client=api, status=models.MatchmakingTicketsListStatus.CANCELLED)
        .to_dict()
    )
    assert [t["id"] for t in listed["tickets"]] == [str(ticket.id)]
    prefs = (
        op("players.players_preferences_update")
        .sync("alice", client=api, body=models.PreferencesInRequest(refuse_same_ip=True, blocked=["mallory"]))
        .to_dict()
    )
    assert prefs == {"player": "alice", "refuse_same_ip": True, "blocked": ["mallory"]}

    with receiver() as box:
        hook = op("callbacks.callback_update").sync(client=api, body=models.CallbackInRequest(url=box.url))
        assert hook.url == box.url and hook.secret
        pinged = op("callbacks.callback_ping").sync(client=api)
        box.wait_for(1)
        deliveries = op("callbacks.deliveries_list").sync(client=api).to_dict()
        assert [d["id"] for d in deliveries["deliveries"]] == [str(pinged.id)]
        again = op("callbacks.deliveries_redeliver").sync(pinged.id, client=api)
        assert again.id == pinged.id
        assert [r.headers["X-Arena-Delivery"] for r in box.wait_for(2)] == [str(pinged.id)] * 2
