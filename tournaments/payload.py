"""Parsing the tournaments' request bodies into typed inputs: shapes and types only, every problem named by its
field (the API's error shape, docs/api.md). The rules' checks (the title, the table size in its range) are the
services' (``tournaments/services.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from arena.api.field_hints import unknown_field
from arena.api.game_payload import refuse_unstorable
from arena.models import is_player_id
from infra.errors import InvalidInput
from infra.hashing import hash_ip

CREATE_FIELDS = {
    "name",
    "game",
    "format",
    "rounds",
    "table_size",
    "starts_at",
    "round_minutes",
    "min_reputation",
    "rating_min",
    "rating_max",
    "max_players",
}
MAX_ROUNDS = 30
MAX_ROUND_MINUTES = 7 * 24 * 60


@dataclass(frozen=True, slots=True)
class TournamentInput:
    name: str
    title: str
    format: str
    rounds: int
    table_size: int | None
    starts_at: datetime
    round_minutes: int
    min_reputation: float | None
    rating_min: float | None
    rating_max: float | None
    max_players: int | None


def _int(body: dict, key: str, low: int, high: int, errors: dict[str, str], *, required: bool = False) -> int | None:
    value = body.get(key)
    if value is None:
        if required:
            errors[key] = "Required."
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        errors[key] = f"Must be an integer from {low} to {high}."
        return None
    return value


def _number(body: dict, key: str, low: float, high: float, errors: dict[str, str]) -> float | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        errors[key] = f"Must be a number from {low:g} to {high:g}."
        return None
    return float(value)


def _object(body: Any) -> dict:
    """The body as an object, refused first if any part of it cannot be stored (a NUL, a lone surrogate)."""
    if not isinstance(body, dict):
        raise InvalidInput("invalid_input", "The body must be a JSON object.", {"body": "Must be an object."})
    refuse_unstorable(body)
    return body


def _refuse(errors: dict[str, str]) -> None:
    if errors:
        raise InvalidInput("invalid_input", "Some values are missing or invalid; see fields.", errors)


def parse_tournament(raw: Any) -> TournamentInput:
    """A ``POST /api/v1/tournaments/`` body; ``InvalidInput`` names each bad field."""
    body = _object(raw)
    errors = {str(key)[:64]: unknown_field(key, CREATE_FIELDS - body.keys()) for key in body.keys() - CREATE_FIELDS}
    name, title = body.get("name"), body.get("game")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 100:
        errors["name"] = "Required: 1 to 100 characters."
    if not isinstance(title, str) or not 1 <= len(title) <= 32:
        errors["game"] = "Required: the game's id (wizard, tokaido, ...)."
    fmt = body.get("format", "swiss")
    if fmt not in ("swiss", "elimination"):
        errors["format"] = 'Must be "swiss" or "elimination" (two-seat tables).'
    rounds = _int(body, "rounds", 1, MAX_ROUNDS, errors, required=True)
    table_size = _int(body, "table_size", 2, 64, errors)
    minutes = _int(body, "round_minutes", 1, MAX_ROUND_MINUTES, errors)
    max_players = _int(body, "max_players", 2, 100_000, errors)
    min_reputation = _number(body, "min_reputation", 0, 100, errors)
    rating_min = _number(body, "rating_min", 0, 10_000, errors)
    rating_max = _number(body, "rating_max", 0, 10_000, errors)
    if rating_min is not None and rating_max is not None and rating_min > rating_max:
        errors["rating_max"] = "Must not be below rating_min."
    starts = body.get("starts_at")
    starts_at = parse_datetime(starts) if isinstance(starts, str) else None
    if starts_at is None or starts_at.tzinfo is None:
        errors["starts_at"] = "Required: an ISO 8601 time with its offset (2026-12-24T18:00:00Z)."
    _refuse(errors)
    assert rounds is not None and starts_at is not None and isinstance(name, str) and isinstance(title, str)
    return TournamentInput(
        name.strip(),
        title,
        fmt,
        rounds,
        table_size,
        starts_at,
        minutes or 60,
        min_reputation,
        rating_min,
        rating_max,
        max_players,
    )


def parse_registration(raw: Any) -> tuple[str, str]:
    """A registration ``{"player", "ip"}``: the player's id and the hash of their address (never the address)."""
    body = _object(raw)
    wanted = {"player", "ip"}
    errors = {str(key)[:64]: unknown_field(key, wanted - body.keys()) for key in body.keys() - wanted}
    player, ip = body.get("player"), body.get("ip")
    if not is_player_id(player):
        errors["player"] = "Required: the site's player id (1-64 letters, digits, _ . -)."
    ip_hash = ""
    if not isinstance(ip, str):
        errors["ip"] = "Required: the player's IPv4 or IPv6 address."
    else:
        try:
            ip_hash = hash_ip(ip)
        except ValueError:
            errors["ip"] = "Not a valid IPv4 or IPv6 address."
    _refuse(errors)
    assert isinstance(player, str)
    return player, ip_hash
