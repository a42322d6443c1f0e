"""The core's contract tables (issue 16 §3), read by the platform's schema hook (``infra/api/contract.py``).

- **every status each operation can answer, with its error codes** (``ERRORS``). To add an answer, add its code to
  the operation's row (or to a shared set in ``infra.api.contract``) and to docs/api.md;
- **each game's own body** as a ``oneOf`` chosen by ``game`` (``arena.games.schema``, generated from the rules
  registry, so a seventh game documents itself);
- a batch's items as the same ``oneOf`` (each game is still judged alone and answered with its own status inside
  the 200), its answer typed (a game or an ``Error`` per item), and
  request bodies closed (``additionalProperties: false``, as the parsers refuse unknown fields);
- patterns and bounds of path parameters and **OpenAPI links** that chain the calls: a recorded game to its GET, a
  ticket to its GET and DELETE, a report to its GET, a player to their history, a leaderboard entry to its player.

What JSON Schema cannot say (a game's scores must add up, a player may not report or block themself, a table size
within the game's and variant's) is answered as a documented 400 with its own code; docs/api.md lists them.
``contract_register(CONTRACT)`` runs from ``ArenaConfig.ready``.
"""

from __future__ import annotations

import copy
from typing import Any

from arena.games import all_games
from arena.games.results import ERROR_CODES as GAME_RULE_CODES
from arena.games.schema import IP, PLAYER_ID, game_schema
from infra.api.contract import ANY, BODY, KEY, MAX_ID, PUBLIC, WRITE, Contract, contract_register
from infra.api.contract import codes_merge as _merge

GAME_BODY = ("unknown_game", *sorted(GAME_RULE_CODES))


# operation id -> status -> the error codes that status may carry. The lead (or anyone adding an answer) extends a
# row here; the hook writes the responses from it.
ERRORS: dict[str, dict[int, tuple[str, ...]]] = {
    # A game naming its tournament_table (docs/tournaments.md, "Rounds, results and deadlines") may also be refused
    # for the table: wrong players or title, no such table, its round over or its game already there.
    "games_create": _merge(
        KEY,
        ANY,
        BODY,
        WRITE,
        {
            400: (*GAME_BODY, "tournament_table_mismatch"),
            404: ("tournament_table_not_found",),
            409: ("table_conflict", "tournament_table_closed", "tournament_table_recorded"),
        },
    ),
    "games_batch": _merge(KEY, ANY, BODY, WRITE),
    "games_retrieve": _merge(KEY, ANY, {404: ("game_not_found",)}),
    "games_list": _merge(KEY, ANY, {400: ("invalid_input",)}),
    "matchmaking_tickets_list": _merge(KEY, ANY, {400: ("invalid_input",)}),
    "matchmaking_tickets_create": _merge(
        KEY,
        ANY,
        BODY,
        WRITE,
        {
            400: (
                "unknown_game",
                "player_count",
                "party_too_large",
                "duplicate_player",
                "variant_not_rated",
                "unknown_variant_option",
                "invalid_variant",
            ),
            403: ("player_banned", "cooldown"),
            409: ("open_ticket", "request_conflict"),
            429: ("too_many_tickets",),
        },
    ),
    "matchmaking_tickets_retrieve": _merge(KEY, ANY, {404: ("ticket_not_found",)}),
    "matchmaking_tickets_cancel": _merge(KEY, ANY, WRITE, {404: ("ticket_not_found",), 409: ("ticket_not_waiting",)}),
    "players_preferences_retrieve": _merge(KEY, ANY, {404: ("player_not_found",)}),
    "players_preferences_update": _merge(
        KEY, ANY, BODY, WRITE, {400: ("cannot_block_self", "too_many_blocked"), 404: ("player_not_found",)}
    ),
    "players_preferences_partial_update": _merge(
        KEY, ANY, BODY, WRITE, {400: ("cannot_block_self", "too_many_blocked"), 404: ("player_not_found",)}
    ),
    "reports_create": _merge(KEY, ANY, BODY, WRITE, {404: ("player_not_found", "game_not_found")}),
    "reports_retrieve": _merge(KEY, ANY, {404: ("report_not_found",)}),
    "players_retrieve": _merge(ANY, PUBLIC, {404: ("player_not_found",)}),
    "games_explain": _merge(ANY, PUBLIC, {404: ("game_not_found",), 409: ("not_rated_yet", "not_rated")}),
    "players_history": _merge(ANY, PUBLIC, {400: ("invalid_input",), 404: ("player_not_found", "unknown_game")}),
    "leaderboards_retrieve": _merge(
        ANY,
        PUBLIC,
        {400: ("invalid_input",), 404: ("unknown_game", "no_leaderboard", "player_not_found", "player_not_ranked")},
    ),
    # A game server's callback and deliveries (matchmaking/api/callbacks.py, docs/api.md "Callbacks and events").
    "callback_retrieve": _merge(KEY, ANY, {404: ("callback_not_found",)}),
    "callback_update": _merge(KEY, ANY, BODY, WRITE),
    "callback_destroy": _merge(KEY, ANY, WRITE, {404: ("callback_not_found",)}),
    "callback_rotate_secret": _merge(KEY, ANY, BODY, WRITE, {404: ("callback_not_found",)}),
    "callback_ping": _merge(KEY, ANY, WRITE, {404: ("callback_not_found",), 409: ("callback_disabled",)}),
    "deliveries_list": _merge(KEY, ANY, {400: ("invalid_input",)}),
    "deliveries_retrieve": _merge(KEY, ANY, {404: ("delivery_not_found",)}),
    "deliveries_redeliver": _merge(
        KEY, ANY, WRITE, {404: ("delivery_not_found", "callback_not_found"), 409: ("callback_disabled",)}
    ),
    # docs/api.md, "The rating economy": an operator's read (scope staff).
    "titles_economy": _merge(KEY, ANY, {400: ("invalid_input",), 404: ("unknown_game",)}),
    # docs/seasons.md (the seasons app's reads)
    "seasons_current": _merge(
        ANY,
        PUBLIC,
        {400: ("invalid_input",), 404: ("unknown_game", "no_season", "player_not_found", "player_not_in_season")},
    ),
    "seasons_closed": _merge(
        ANY,
        PUBLIC,
        {
            400: ("invalid_input",),
            404: ("unknown_game", "no_season", "season_not_found", "player_not_found", "player_not_in_season"),
        },
    ),
    "seasons_player": _merge(ANY, PUBLIC, {404: ("unknown_game", "no_season", "player_not_found")}),
    # docs/tournaments.md ("The API"): a server's own tournaments.
    "tournaments_create": _merge(KEY, ANY, BODY, WRITE, {400: ("unknown_game", "cooperative_game")}),
    "tournaments_retrieve": _merge(KEY, ANY, {404: ("tournament_not_found",)}),
    "tournaments_start": _merge(
        KEY, ANY, WRITE, {404: ("tournament_not_found",), 409: ("tournament_started", "too_few_players")}
    ),
    "tournaments_players_create": _merge(
        KEY,
        ANY,
        BODY,
        WRITE,
        {
            403: ("player_banned", "cooldown", "reputation_too_low", "rating_out_of_range"),
            404: ("tournament_not_found",),
            409: ("tournament_started", "tournament_full", "already_registered"),
        },
    ),
    "tournaments_players_destroy": _merge(
        KEY, ANY, WRITE, {404: ("tournament_not_found", "entry_not_found"), 409: ("tournament_started",)}
    ),
    "tournaments_rounds_retrieve": _merge(KEY, ANY, {404: ("tournament_not_found", "round_not_found")}),
    "tournaments_standings_explain": _merge(KEY, ANY, {404: ("tournament_not_found", "standing_not_found")}),
}

# Path parameters: what each may be (a value outside is a 404, documented as such).
PATH_PARAMETERS: dict[str, dict[str, Any]] = {
    "game_id": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    "report_id": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    "tournament_id": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    "number": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    "ticket_id": {"type": "string", "format": "uuid"},
    "delivery_id": {"type": "string", "format": "uuid"},
    "player": {"type": "string", "pattern": PLAYER_ID},
    "game": {"type": "string", "enum": [game.title for game in all_games()]},
}

# Query parameters by (operation, name): their bounds, as the views check them.
QUERY_PARAMETERS: dict[tuple[str, str], dict[str, Any]] = {
    ("leaderboards_retrieve", "limit"): {"type": "integer", "minimum": 1, "maximum": 200},
    ("leaderboards_retrieve", "offset"): {"type": "integer", "minimum": 0, "maximum": 1_000_000_000, "default": 0},
    ("leaderboards_retrieve", "around"): {"type": "string", "pattern": PLAYER_ID},
    ("seasons_current", "limit"): {"type": "integer", "minimum": 1, "maximum": 200},
    ("seasons_current", "offset"): {"type": "integer", "minimum": 0, "maximum": 1_000_000_000, "default": 0},
    ("seasons_current", "around"): {"type": "string", "pattern": PLAYER_ID},
    ("seasons_closed", "limit"): {"type": "integer", "minimum": 1, "maximum": 200},
    ("seasons_closed", "offset"): {"type": "integer", "minimum": 0, "maximum": 1_000_000_000, "default": 0},
    ("seasons_closed", "around"): {"type": "string", "pattern": PLAYER_ID},
    ("titles_economy", "days"): {"type": "integer", "minimum": 1, "maximum": 400, "default": 30},
    ("players_history", "limit"): {"type": "integer", "minimum": 1, "maximum": 200, "default": 50},
    ("players_history", "before"): {"type": "integer", "minimum": 0, "maximum": MAX_ID},
    # Issue 26: the lists a game server reads back (doors/game_read.py, matchmaking/api/*).
    ("games_list", "limit"): {"type": "integer", "minimum": 1, "maximum": 100, "default": 50},
    ("games_list", "table_id"): {"type": "string", "minLength": 1, "maxLength": 64},
    ("games_list", "since"): {"type": "string", "format": "date-time"},
    ("matchmaking_tickets_list", "limit"): {"type": "integer", "minimum": 1, "maximum": 100, "default": 50},
    ("deliveries_list", "limit"): {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
}

LINKS: dict[tuple[str, str], dict[str, dict[str, Any]]] = {
    ("games_create", "201"): {
        "GetGame": {
            "operationId": "games_retrieve",
            "parameters": {"game_id": "$response.body#/id"},
            "description": "The recorded game, with its rating changes once rated.",
        }
    },
    ("games_create", "200"): {
        "GetGame": {"operationId": "games_retrieve", "parameters": {"game_id": "$response.body#/id"}}
    },
    ("matchmaking_tickets_create", "201"): {
        "GetTicket": {"operationId": "matchmaking_tickets_retrieve", "parameters": {"ticket_id": "$response.body#/id"}},
        "CancelTicket": {
            "operationId": "matchmaking_tickets_cancel",
            "parameters": {"ticket_id": "$response.body#/id"},
        },
    },
    ("matchmaking_tickets_create", "200"): {
        "GetTicket": {"operationId": "matchmaking_tickets_retrieve", "parameters": {"ticket_id": "$response.body#/id"}}
    },
    ("reports_create", "201"): {
        "GetReport": {"operationId": "reports_retrieve", "parameters": {"report_id": "$response.body#/id"}}
    },
    ("players_retrieve", "200"): {
        "PlayerPreferences": {
            "operationId": "players_preferences_retrieve",
            "parameters": {"player": "$response.body#/player"},
        }
    },
    ("leaderboards_retrieve", "200"): {
        "TopPlayer": {
            "operationId": "players_retrieve",
            "parameters": {"player": "$response.body#/entries/0/player"},
            "description": "The player page of the board's first entry.",
        },
        "TopPlayerHistory": {
            "operationId": "players_history",
            "parameters": {"player": "$response.body#/entries/0/player", "game": "$response.body#/game"},
            "description": "The first entry's rating history in this game.",
        },
    },
}


# The one field a game body may carry beyond its game's own (docs/tournaments.md, "Rounds, results and deadlines"):
# doors/tournament_games.py takes it off before the core parses the body, on the single and the batch endpoint.
TOURNAMENT_TABLE = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_ID,
    "nullable": True,
    "description": "The tournament table this game is the result of: the table's id as its "
    "tournament.table_formed push gave it. Left out or null: an ordinary game.",
    "examples": [4711],
}


def _games(components: dict[str, Any]) -> None:
    """GameInRequest becomes a oneOf of every game's own body, chosen by ``game``."""
    generic = components["GameInRequest"]["properties"]
    table_id = {"type": "string", "minLength": 1, "maxLength": 64, "description": "The server's own id of the table."}
    finished_at = {
        **generic.get("finished_at", {}),
        "type": "string",
        "format": "date-time",
        "description": "ISO 8601 with a timezone, from 2000-01-01 to 5 minutes ahead of Arena's clock; default now.",
    }
    mapping = {}
    for rules in all_games():
        name = f"GameIn_{rules.title}"
        components[name] = game_schema(rules, table_id=table_id, finished_at=finished_at)
        components[name]["properties"]["tournament_table"] = copy.deepcopy(TOURNAMENT_TABLE)
        mapping[rules.title] = f"#/components/schemas/{name}"
    components["GameInRequest"] = {
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "game", "mapping": mapping},
        "description": "A finished game; its `players`, `variant` and `details` are the game's own (docs/games.md).",
    }
    # Typed batches (issue 26 §3): an item is the same oneOf as a single game, so a generated client sends its game
    # models as they are. Each item is still judged alone: one that breaks the schema is answered inside the 200
    # with its own 400, never a refusal of the batch (schemathesis.toml says so for the negative checks).
    components["GameBatchInRequest"] = {
        "type": "object",
        "required": ["games"],
        "additionalProperties": False,
        "properties": {
            "games": {
                "type": "array",
                "minItems": 1,
                "maxItems": 500,
                "items": {"$ref": "#/components/schemas/GameInRequest"},
                "description": "Up to 500 game bodies, each judged alone and answered inside the 200 with its own "
                "status and body: a malformed item is a 400 there, never a refusal of the batch.",
            }
        },
    }
    item = components.get("GameBatchItemOut", {}).get("properties", {})
    if item:
        item["status_code"] = {
            "type": "integer",
            "description": "201 recorded, 200 a resend of the same game, 400 refused, 404 no such "
            "tournament_table, 409 table_conflict or the tournament table's: what the game alone would have been "
            "answered.",
        }
        item["body"] = {
            "oneOf": [{"$ref": "#/components/schemas/GameOut"}, {"$ref": "#/components/schemas/Error"}],
            "description": "The game (200, 201) or its refusal (400, 404, 409), as POST /api/v1/games/ "
            "would answer it alone.",
        }
    components.pop("GamePlayerInRequest", None)


# The README's own examples (its API tour), so the examples phase of a fuzzer and /api/docs/ start from them.
EXAMPLES: dict[str, Any] = {
    "GameIn_tokaido": {
        "table_id": "T-1",
        "game": "tokaido",
        "players": [
            {"player": "alice", "ip": "203.0.113.7", "score": 61, "achievements": 3},
            {"player": "bob", "ip": "198.51.100.2", "score": 61, "achievements": 1},
        ],
    },
    "TicketInRequest": {
        "player": "alice",
        "ip": "203.0.113.7",
        "game": "tokaido",
        "min_players": 2,
        "max_players": 5,
        "party": [{"player": "bob", "ip": "198.51.100.2"}],
        "request_id": "q-81",
    },
    "PreferencesInRequest": {"refuse_same_ip": True, "blocked": ["mallory"]},
    "PreferencesPatchInRequest": {"refuse_same_ip": False},
    "ReportInRequest": {
        "reporter": "carol",
        "accused": ["bob", "dave"],
        "reason": "other",
        "description": "Bob and Dave always sit at the same tables.",
    },
}


def _close(components: dict[str, Any]) -> None:
    """Request bodies refuse unknown fields, as their parsers do."""
    for name in (
        "TicketInRequest",
        "PreferencesInRequest",
        "PreferencesPatchInRequest",
        "ReportInRequest",
        "PartyMemberInRequest",
    ):
        if name in components:
            components[name]["additionalProperties"] = False
    ticket = components.get("TicketInRequest", {}).get("properties", {})
    for name in ("variant", "min_players", "max_players", "party", "request_id"):  # null: left out
        if name in ticket:
            ticket[name]["nullable"] = True
    if ticket:
        ticket["ip"] = IP
        ticket["game"] = copy.deepcopy(PATH_PARAMETERS["game"])
        for bound in ("min_players", "max_players"):
            ticket[bound] = {**ticket[bound], "minimum": 1, "maximum": 64}
        ticket["party"] = {**ticket["party"], "maxItems": 3}
        ticket["request_id"] = {**ticket["request_id"], "minLength": 1}
        components["PartyMemberInRequest"]["properties"]["ip"] = IP
    for name in ("PreferencesInRequest", "PreferencesPatchInRequest"):
        if name in components:
            components[name]["properties"]["blocked"]["maxItems"] = 100


def _components(components: dict[str, Any]) -> None:
    if "GameInRequest" in components:
        _games(components)
    _close(components)


CONTRACT = Contract(
    errors=ERRORS,
    path_parameters=PATH_PARAMETERS,
    query_parameters=QUERY_PARAMETERS,
    links=LINKS,
    examples=EXAMPLES,
    components=_components,
)


def contract_tables_register() -> None:
    contract_register(CONTRACT)
