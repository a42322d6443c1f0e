"""Parsing a ticket request into a typed ``TicketInput``: shapes and types only, each problem named by its path.

The game's own rules (limits, variant, party size) are the service's to check; this only makes sure the values
have the right types and hashes the IPs at once, so no raw address travels further (docs/moderation.md).
"""

from __future__ import annotations

import json
from typing import Any

from arena.api.field_hints import unknown_field
from arena.api.game_payload import refuse_unstorable
from arena.models import is_player_id
from infra.errors import InvalidInput
from infra.hashing import fingerprint, hash_ip
from matchmaking.preferences import blocked_list_check
from matchmaking.services import PARTY_MAX, SeatInput, TicketInput

TOP_LEVEL = {
    "player",
    "ip",
    "game",
    "variant",
    "rated",
    "min_players",
    "max_players",
    "party",
    "request_id",
    "min_reputation",
    "avoid_provisional",
}
_MIN_REPUTATION = "Must be a number from 0 to 100 (a percentage), or null for any."


def _min_reputation(raw: Any, path: str, errors: dict[str, str]) -> float | None:
    """A percentage, 0 to 100; None when absent or null (docs/matchmaking.md, "Reputation")."""
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 <= raw <= 100:
        errors[path] = _MIN_REPUTATION
        return None
    return float(raw)


# Far above any game's table: the service compares with the game's own limits, this keeps types sane.
MAX_COUNT = 64


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seat(raw: Any, path: str, errors: dict[str, str]) -> SeatInput | None:
    if not isinstance(raw, dict):
        errors[path or "body"] = "Must be an object."
        return None
    prefix = f"{path}." if path else ""
    for key in raw.keys() - {"player", "ip", "min_reputation"} if path else ():
        errors[f"{prefix}{key}"] = unknown_field(key, {"player", "ip", "min_reputation"} - raw.keys())
    least = _min_reputation(raw.get("min_reputation"), f"{prefix}min_reputation", errors)
    player, ip = raw.get("player"), raw.get("ip")
    if player is None:
        errors[f"{prefix}player"] = "Required."
    elif not is_player_id(player):
        errors[f"{prefix}player"] = "Must be 1 to 64 letters, digits, '_', '.' or '-'."
    if not isinstance(ip, str):
        errors[f"{prefix}ip"] = "Required: the player's IPv4 or IPv6 address."
        return None
    try:
        ip_hash = hash_ip(ip)
    except ValueError:
        errors[f"{prefix}ip"] = "Not a valid IPv4 or IPv6 address."
        return None
    return SeatInput(player, ip_hash, least) if is_player_id(player) else None


def parse_ticket(body: Any) -> TicketInput:
    """Raise ``InvalidInput`` naming every bad value, or return the typed request with IPs already hashed."""
    if not isinstance(body, dict):
        raise InvalidInput("invalid_input", "The ticket must be a JSON object.", {"body": "Must be an object."})
    refuse_unstorable(body)
    errors: dict[str, str] = {}
    for key in body.keys() - TOP_LEVEL:
        errors[str(key)[:100]] = unknown_field(key, TOP_LEVEL - body.keys())
    owner = _seat(body, "", errors)
    game = body.get("game")
    if game is None:
        errors["game"] = "Required."
    elif not isinstance(game, str) or not 1 <= len(game) <= 32:
        errors["game"] = "Must be one of the games, e.g. tokaido (docs/games.md lists them)."
    variant = body.get("variant", {})
    if variant is None:
        variant = {}
    if not isinstance(variant, dict):
        errors["variant"] = "Must be an object."
    rated = body.get("rated", True)
    if not isinstance(rated, bool):
        errors["rated"] = "Must be true or false."
    counts: dict[str, int | None] = {}
    for name in ("min_players", "max_players"):
        value = body.get(name)
        if value is not None and not (_is_int(value) and 1 <= value <= MAX_COUNT):
            errors[name] = "Must be a whole number of players."
        counts[name] = value if _is_int(value) else None
    raw_party = body.get("party", [])
    party: list[SeatInput] = []
    if raw_party is None:
        raw_party = []
    # A list longer than PARTY_MAX is the service's party_too_large (docs/api.md), with the game's own limit;
    # only a list beyond any table (MAX_COUNT) is refused here.
    if not isinstance(raw_party, list) or len(raw_party) > MAX_COUNT:
        errors["party"] = f'Must be a list of at most {PARTY_MAX} friends, each {{"player", "ip"}}.'
    else:
        for index, raw in enumerate(raw_party):
            seat = _seat(raw, f"party.{index}", errors)
            if seat is not None:
                party.append(seat)
    request_id = body.get("request_id")
    if request_id is not None and not (isinstance(request_id, str) and 1 <= len(request_id) <= 64):
        errors["request_id"] = "Must be a string of 1 to 64 characters."
    avoid = body.get("avoid_provisional", False)
    if not isinstance(avoid, bool):
        errors["avoid_provisional"] = "Must be true or false."
    if errors:
        raise InvalidInput("invalid_input", "Some values are missing or invalid; see fields.", errors)
    try:
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    except (TypeError, ValueError, UnicodeEncodeError):
        raise InvalidInput("invalid_input", "The body cannot be read as sent.", {"body": "Unreadable."}) from None
    # The API's "game" is the code's title (docs/architecture.md#names): translated here, once.
    return TicketInput(
        player=owner,
        title=game,
        variant=variant,
        rated=rated,
        min_players=counts["min_players"],
        max_players=counts["max_players"],
        party=tuple(party),
        request_id=request_id,
        fingerprint=fingerprint(canonical),
        avoid_provisional=avoid is True,
    )


def parse_preferences(body: Any) -> tuple[bool, list[str]]:
    """A PUT's ``{"refuse_same_ip": bool, "blocked": [handles]}``: a full replacement, so a field left out takes its
    default (false, no one blocked). How many may be blocked is the service's rule (``blocked_list_check``),
    applied first, before any entry is looked at."""
    given = parse_preferences_patch(body)
    return given.get("refuse_same_ip", False), given.get("blocked", [])


def parse_preferences_patch(body: Any) -> dict[str, Any]:
    """A PATCH's fields: only those sent, each checked as a PUT checks it (``preferences_update`` merges them)."""
    if not isinstance(body, dict):
        raise InvalidInput("invalid_input", "The preferences must be a JSON object.", {"body": "Must be an object."})
    if isinstance(body.get("blocked"), list):
        blocked_list_check(body["blocked"])
    refuse_unstorable(body)
    errors: dict[str, str] = {}
    given: dict[str, Any] = {}
    for key in body.keys() - {"refuse_same_ip", "blocked"}:
        errors[str(key)[:100]] = "Unknown field."
    if "refuse_same_ip" in body:
        given["refuse_same_ip"] = body["refuse_same_ip"]
        if not isinstance(given["refuse_same_ip"], bool):
            errors["refuse_same_ip"] = "Must be true or false."
    if "blocked" in body:
        blocked = given["blocked"] = body["blocked"]
        if not isinstance(blocked, list):
            errors["blocked"] = "Must be a list of player ids."
        else:
            for index, handle in enumerate(blocked):
                if not is_player_id(handle):
                    errors[f"blocked.{index}"] = "Must be 1 to 64 letters, digits, '_', '.' or '-'."
    if errors:
        raise InvalidInput("invalid_input", "Some values are missing or invalid; see fields.", errors)
    return given
