"""Each game's body as JSON Schema, generated from its rules module: the API's contract (``arena.api.contract``)
shows a game server exactly the fields its game takes, so a client generated from the schema can record it.

What a schema can say is said here: the game's name, its variant options and their values, how many players,
which per-player fields are required and their ranges, whether ``team`` is allowed, the details' keys. What it
cannot say (scores that must add up, a player named once, Nile's crop count by player count) stays the rules'
(``judge``), answered with a game-rule 400 (docs/api.md). Pure: no Django.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import GameRules

PLAYER_ID = r"^[A-Za-z0-9_.\-]{1,64}$"
MAX_ABS_SCORE = 1_000_000_000
# ipv4 or ipv6, as the API accepts either (stored only as a keyed hash).
# Each branch typed as well: a generator reads an untyped branch as "unknown" (openapi-typescript did).
IP = {
    "type": "string",
    "anyOf": [{"type": "string", "format": "ipv4"}, {"type": "string", "format": "ipv6"}],
    "description": "The player's IPv4 or IPv6 address; stored only as a keyed hash.",
}


def player_schema(rules: GameRules) -> dict[str, Any]:
    """One entry of ``players`` for this game."""
    properties: dict[str, Any] = {
        "player": {"type": "string", "pattern": PLAYER_ID, "description": "The site's player id."},
        "ip": IP,
        "device": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256,
            "nullable": True,
            "description": "Opaque fingerprint, hashed.",
        },
        "score": {"type": "integer", "minimum": -MAX_ABS_SCORE, "maximum": MAX_ABS_SCORE},
        "quit": {"type": "boolean", "default": False, "description": "The first player to quit, if any."},
    }
    if rules.score_required:
        properties["score"] = {**properties["score"], "description": "Required."}
    else:
        properties["score"] = {
            **properties["score"],
            "nullable": True,
            "description": "May be left out: it follows from the other fields.",
        }
    if rules.team_play:
        properties["team"] = {
            "anyOf": [
                {"type": "string", "minLength": 1, "maxLength": 32},
                {"type": "integer", "minimum": -(10**30), "maximum": 10**31 - 1},
            ],
            "nullable": True,
            "description": "Spades: two teams of two, or none; Hanabi: one team, or none. An "
            "integer is read as its digits.",
        }
    # A game not played in teams has no ``team`` in its schema at all (issue 26 §3), so a generated client's
    # model has no such field and sends none; the parser still reads a ``team: null`` as left out (docs/games.md).
    required = ["player", "ip"]
    if rules.score_required:
        required.append("score")
    for name, spec in rules.player_fields.items():
        properties[name] = spec.json_schema()
        if spec.required:
            required.append(name)
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def variant_schema(rules: GameRules) -> dict[str, Any]:
    properties = {name: _choice(allowed) for name, allowed in rules.variants.items()}
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "description": "Options left out take their default (docs/games.md).",
    }


def _choice(allowed: tuple[Any, ...]) -> dict[str, Any]:
    """A variant option: its values, typed (a boolean option is just a boolean: generated clients read it so)."""
    if all(isinstance(value, bool) for value in allowed):
        return {"type": "boolean", "default": allowed[0]}
    kind = "integer" if all(isinstance(value, int) for value in allowed) else "string"
    return {"type": kind, "enum": list(allowed), "default": allowed[0]}


def details_schema(rules: GameRules) -> dict[str, Any]:
    properties = {key: dict(rules.details_schema.get(key, {})) for key in sorted(rules.details_keys)}
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "nullable": True,
        "description": "Optional details, used to check the scores (docs/games.md).",
    }


def game_schema(rules: GameRules, *, table_id: dict[str, Any], finished_at: dict[str, Any]) -> dict[str, Any]:
    """The whole body of one game of ``rules``; the top-level fields every game shares are given by the caller."""
    return {
        "type": "object",
        "title": f"{rules.name} game",
        "properties": {
            "table_id": table_id,
            "game": {"type": "string", "enum": [rules.title], "description": rules.name},
            "variant": variant_schema(rules),
            "rated": {"type": "boolean", "default": True},
            "finished_at": {**finished_at, "nullable": True},
            "players": {
                "type": "array",
                "items": player_schema(rules),
                "minItems": rules.min_players,
                "maxItems": rules.max_players,
            },
            "details": details_schema(rules),
        },
        "required": ["table_id", "game", "players"],
        "additionalProperties": False,
    }
