"""The OpenAPI contract made to tell the truth (issue 16 §3): a drf-spectacular postprocessing hook.

The views' ``extend_schema`` say the shapes; this hook adds what drf-spectacular cannot derive:

- **every status each operation can answer, with its error codes** (``ERRORS``: one table per operation, each
  status with the codes it may carry; each response's schema then allows exactly those codes, so a fuzzer checking
  responses against the schema catches a code the table forgot). To add an answer, add its code to the
  operation's row (or to a shared set below) and to docs/api.md;
- **each game's own body** as a ``oneOf`` chosen by ``game`` (``arena.games.schema``, generated from the rules
  registry, so a seventh game documents itself);
- a batch's items as any object (each game is judged alone and answered with its own status inside the 200), and
  request bodies closed (``additionalProperties: false``, as the parsers refuse unknown fields);
- patterns and bounds of path parameters, ``Retry-After`` headers, and **OpenAPI links** that chain the calls:
  a recorded game to its GET, a ticket to its GET and DELETE, a report to its GET, a player to their history, a
  leaderboard entry to its player.

What JSON Schema cannot say (a game's scores must add up, a player may not report or block themself, a table size
within the game's and variant's) is answered as a documented 400 with its own code; docs/api.md lists them.
"""
from __future__ import annotations

import copy
from typing import Any

from arena.games import all_games
from arena.games.base import ERROR_CODES as GAME_RULE_CODES
from arena.games.schema import PLAYER_ID, game_schema

MAX_ID = 2**63 - 1

# Shared sets of codes, by what the operation is.
# A key lacking the operation's scope is 403 missing_scope (docs/security.md#game-server-keys-and-scopes).
KEY = {401: ("missing_api_key", "invalid_api_key"), 403: ("missing_scope",)}
ANY = {406: ("not_acceptable",)}
BODY = {400: ("invalid_input", "malformed_json"), 413: ("body_too_large",), 415: ("unsupported_media_type",)}
# Writes are throttled per key (API_WRITE_THROTTLE_RATE, infra/api/throttles.py).
WRITE = {429: ("throttled",), 503: ("busy",)}
PUBLIC = {429: ("throttled",)}
GAME_BODY = ("unknown_game", *sorted(GAME_RULE_CODES))


def _merge(*tables: dict[int, tuple[str, ...]]) -> dict[int, tuple[str, ...]]:
    merged: dict[int, list[str]] = {}
    for table in tables:
        for status, codes in table.items():
            merged.setdefault(status, [])
            merged[status] += [code for code in codes if code not in merged[status]]
    return {status: tuple(codes) for status, codes in sorted(merged.items())}


# operation id -> status -> the error codes that status may carry. The lead (or anyone adding an answer) extends a
# row here; the hook writes the responses from it.
ERRORS: dict[str, dict[int, tuple[str, ...]]] = {
    "games_create": _merge(KEY, ANY, BODY, WRITE, {400: GAME_BODY, 409: ("table_conflict",)}),
    "games_batch": _merge(KEY, ANY, BODY, WRITE),
    "games_retrieve": _merge(KEY, ANY, {404: ("game_not_found",)}),
    "matchmaking_tickets_create": _merge(KEY, ANY, BODY, WRITE, {
        400: ("unknown_game", "player_count", "party_too_large", "duplicate_player", "variant_not_rated",
              "unknown_variant_option", "invalid_variant"),
        403: ("player_banned", "cooldown"), 409: ("open_ticket", "request_conflict"), 429: ("too_many_tickets",)}),
    "matchmaking_tickets_retrieve": _merge(KEY, ANY, {404: ("ticket_not_found",)}),
    "matchmaking_tickets_cancel": _merge(KEY, ANY, WRITE, {404: ("ticket_not_found",),
                                                           409: ("ticket_not_waiting",)}),
    "players_preferences_retrieve": _merge(KEY, ANY, {404: ("player_not_found",)}),
    "players_preferences_update": _merge(KEY, ANY, BODY, WRITE, {400: ("cannot_block_self", "too_many_blocked"),
                                                                 404: ("player_not_found",)}),
    "players_preferences_partial_update": _merge(KEY, ANY, BODY, WRITE, {
        400: ("cannot_block_self", "too_many_blocked"), 404: ("player_not_found",)}),
    "reports_create": _merge(KEY, ANY, BODY, WRITE, {404: ("player_not_found", "game_not_found")}),
    "reports_retrieve": _merge(KEY, ANY, {404: ("report_not_found",)}),
    "players_retrieve": _merge(ANY, PUBLIC, {404: ("player_not_found",)}),
    "games_explain": _merge(ANY, PUBLIC, {404: ("game_not_found",), 409: ("not_rated_yet", "not_rated")}),
    "players_history": _merge(ANY, PUBLIC, {400: ("invalid_input",), 404: ("player_not_found", "unknown_game")}),
    "leaderboards_retrieve": _merge(ANY, PUBLIC, {
        400: ("invalid_input",),
        404: ("unknown_game", "no_leaderboard", "player_not_found", "player_not_ranked")}),
    # docs/seasons.md (the seasons app's reads)
    "seasons_current": _merge(ANY, PUBLIC, {
        400: ("invalid_input",), 404: ("unknown_game", "no_season", "player_not_found", "player_not_in_season")}),
    "seasons_closed": _merge(ANY, PUBLIC, {
        400: ("invalid_input",),
        404: ("unknown_game", "no_season", "season_not_found", "player_not_found", "player_not_in_season")}),
    "seasons_player": _merge(ANY, PUBLIC, {404: ("unknown_game", "no_season", "player_not_found")}),
}

_RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before sending the same request again.",
                                "schema": {"type": "integer", "minimum": 0}}}

# Path parameters: what each may be (a value outside is a 404, documented as such).
PATH_PARAMETERS: dict[str, dict[str, Any]] = {
    "game_id": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    "report_id": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    "ticket_id": {"type": "string", "format": "uuid"},
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
    ("players_history", "limit"): {"type": "integer", "minimum": 1, "maximum": 200, "default": 50},
    ("players_history", "before"): {"type": "integer", "minimum": 0, "maximum": MAX_ID},
}

LINKS: dict[tuple[str, str], dict[str, dict[str, Any]]] = {
    ("games_create", "201"): {"GetGame": {"operationId": "games_retrieve",
                                          "parameters": {"game_id": "$response.body#/id"},
                                          "description": "The recorded game, with its rating changes once rated."}},
    ("games_create", "200"): {"GetGame": {"operationId": "games_retrieve",
                                          "parameters": {"game_id": "$response.body#/id"}}},
    ("matchmaking_tickets_create", "201"): {
        "GetTicket": {"operationId": "matchmaking_tickets_retrieve",
                      "parameters": {"ticket_id": "$response.body#/id"}},
        "CancelTicket": {"operationId": "matchmaking_tickets_cancel",
                         "parameters": {"ticket_id": "$response.body#/id"}}},
    ("matchmaking_tickets_create", "200"): {
        "GetTicket": {"operationId": "matchmaking_tickets_retrieve",
                      "parameters": {"ticket_id": "$response.body#/id"}}},
    ("reports_create", "201"): {"GetReport": {"operationId": "reports_retrieve",
                                              "parameters": {"report_id": "$response.body#/id"}}},
    ("players_retrieve", "200"): {
        "PlayerPreferences": {"operationId": "players_preferences_retrieve",
                              "parameters": {"player": "$response.body#/player"}}},
    ("leaderboards_retrieve", "200"): {
        "TopPlayer": {"operationId": "players_retrieve", "parameters": {"player": "$response.body#/entries/0/player"},
                      "description": "The player page of the board's first entry."},
        "TopPlayerHistory": {"operationId": "players_history",
                             "parameters": {"player": "$response.body#/entries/0/player",
                                            "game": "$response.body#/game"},
                             "description": "The first entry's rating history in this game."}},
}


def error_schema(codes: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "object", "required": ["error"], "properties": {"error": {
        "type": "object", "required": ["code", "message"],
        "properties": {"code": {"type": "string", "enum": list(codes)}, "message": {"type": "string"},
                       "fields": {"type": "object", "additionalProperties": {"type": "string"},
                                  "description": "The values at fault, by JSON path."}}}}}


def _operations(result: dict[str, Any]):
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "operationId" in operation:
                yield path, method, operation


def _games(components: dict[str, Any]) -> None:
    """GameInRequest becomes a oneOf of every game's own body, chosen by ``game``."""
    generic = components["GameInRequest"]["properties"]
    table_id = {"type": "string", "minLength": 1, "maxLength": 64,
                "description": "The server's own id of the table."}
    finished_at = {**generic.get("finished_at", {}), "type": "string", "format": "date-time",
                   "description": "ISO 8601 with a timezone, from 2000-01-01 to 5 minutes ahead of Arena's clock; "
                                  "default now."}
    mapping = {}
    for rules in all_games():
        name = f"GameIn_{rules.title}"
        components[name] = game_schema(rules, table_id=table_id, finished_at=finished_at)
        mapping[rules.title] = f"#/components/schemas/{name}"
    components["GameInRequest"] = {
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "game", "mapping": mapping},
        "description": "A finished game; its `players`, `variant` and `details` are the game's own (docs/games.md).",
    }
    components["GameBatchInRequest"] = {
        "type": "object", "required": ["games"], "additionalProperties": False,
        "properties": {"games": {
            "type": "array", "minItems": 1, "maxItems": 500,
            "items": {"description": "Any JSON value, meant to be a game body (GameInRequest). Each item is judged "
                                 "alone, whatever it is, and answered inside the 200 with its own status and body: "
                                 "a malformed item is a 400 there, never a refusal of the batch."}}},
    }
    components.pop("GamePlayerInRequest", None)


# The README's own examples (its API tour), so the examples phase of a fuzzer and /api/docs/ start from them.
EXAMPLES: dict[str, Any] = {
    "GameIn_tokaido": {"table_id": "T-1", "game": "tokaido", "players": [
        {"player": "alice", "ip": "203.0.113.7", "score": 61, "achievements": 3},
        {"player": "bob", "ip": "198.51.100.2", "score": 61, "achievements": 1}]},
    "TicketInRequest": {"player": "alice", "ip": "203.0.113.7", "game": "tokaido", "min_players": 2,
                        "max_players": 5, "party": [{"player": "bob", "ip": "198.51.100.2"}], "request_id": "q-81"},
    "PreferencesInRequest": {"refuse_same_ip": True, "blocked": ["mallory"]},
    "PreferencesPatchInRequest": {"refuse_same_ip": False},
    "ReportInRequest": {"reporter": "carol", "accused": ["bob", "dave"], "reason": "other",
                        "description": "Bob and Dave always sit at the same tables."},
}


def _close(components: dict[str, Any]) -> None:
    """Request bodies refuse unknown fields, as their parsers do."""
    for name in ("TicketInRequest", "PreferencesInRequest", "PreferencesPatchInRequest", "ReportInRequest",
                 "PartyMemberInRequest"):
        if name in components:
            components[name]["additionalProperties"] = False
    ticket = components.get("TicketInRequest", {}).get("properties", {})
    for name in ("variant", "min_players", "max_players", "party", "request_id"):  # null: left out
        if name in ticket:
            ticket[name]["nullable"] = True
    if ticket:
        from arena.games.schema import IP

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


def postprocess(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular's POSTPROCESSING_HOOKS entry (config/settings.py)."""
    components = result.setdefault("components", {}).setdefault("schemas", {})
    if "GameInRequest" in components:
        _games(components)
    _close(components)
    for name, example in EXAMPLES.items():
        if name in components:
            components[name]["example"] = copy.deepcopy(example)
    for _path, _method, operation in _operations(result):
        op_id = operation["operationId"]
        has_path_parameters = False
        for parameter in operation.get("parameters", []):
            if parameter.get("in") == "path" and parameter["name"] in PATH_PARAMETERS:
                has_path_parameters = True
                parameter["schema"] = copy.deepcopy(PATH_PARAMETERS[parameter["name"]])
            elif parameter.get("in") == "query" and (op_id, parameter["name"]) in QUERY_PARAMETERS:
                parameter["schema"] = copy.deepcopy(QUERY_PARAMETERS[(op_id, parameter["name"])])
        responses = operation.setdefault("responses", {})
        table = ERRORS.get(op_id, {})
        if has_path_parameters:
            # A path no endpoint matches (a parameter outside its pattern) is the API's JSON not_found.
            table = _merge(table, {404: ("not_found",)})
        for status, codes in table.items():
            response: dict[str, Any] = {
                "description": "Error codes: " + ", ".join(f"`{code}`" for code in codes) + " (docs/api.md).",
                "content": {"application/json": {"schema": error_schema(codes)}},
            }
            if status in (429, 503):
                response["headers"] = copy.deepcopy(_RETRY_AFTER)
            responses[str(status)] = response
        for status, response in responses.items():
            links = LINKS.get((op_id, status))
            if links:
                response["links"] = copy.deepcopy(links)
    return result
