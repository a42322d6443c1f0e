"""Parsing a game body into a typed ``GameInput``: shapes and types only, every problem named by its JSON path.

A plain function rather than a DRF serializer because a batch carries up to 500 games and nested serializers
cost more than the database work; ``arena.api.schemas`` describes the same body for the OpenAPI schema, and
a test keeps the two in step.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from arena.api.field_hints import suggestion, unknown_field
from arena.games.base import COMMON_ENTRY_KEYS
from arena.games.results import Entry
from arena.models import is_player_id
from arena.recording import GameInput
from infra.errors import InvalidInput
from infra.hashing import hash_device, hash_ip

TOP_LEVEL = {"table_id", "game", "variant", "rated", "finished_at", "players", "details"}
# The keys every player result has, whatever the game: the rules' own list, so the two cannot drift apart.
COMMON_PLAYER_KEYS = COMMON_ENTRY_KEYS
MAX_PLAYERS = 64
# Far beyond any game's score, and inside the database's 32-bit integer column.
MAX_ABS_SCORE = 1_000_000_000
# Game servers' clocks drift; a finish a little ahead of ours is not "in the future".
CLOCK_SKEW = timedelta(minutes=5)
# No online table finished before this; an earlier date is a game server's bug (a zero timestamp, year 1), and
# years near 1 cannot even be converted to UTC.
EARLIEST_FINISH = datetime(2000, 1, 1, tzinfo=UTC)
# Deepest nesting of objects and lists a game body may have. Real details are a few levels deep; a limit keeps
# every later walk of the body (this check, the fingerprint, PostgreSQL's jsonb) far from any recursion limit.
MAX_DEPTH = 32


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _string(value: Any, path: str, errors: dict[str, str], *, max_length: int) -> str | None:
    if value is None:
        errors[path] = "Required."
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= max_length:
        errors[path] = f"Must be a string of 1 to {max_length} characters."
        return None
    return value


def _player(raw: Any, index: int, errors: dict[str, str]) -> Entry | None:
    path = f"players.{index}"
    if not isinstance(raw, dict):
        errors[path] = "Must be an object."
        return None
    before = len(errors)
    player = raw.get("player")
    if player is None:
        errors[f"{path}.player"] = "Required."
        for key in raw:  # the field meant for it, named (``user``): the rules name the other unknown ones
            if suggestion(key, {"player"}) == "player":
                errors[f"{path}.{key}"] = "Unknown field; did you mean player?"
    elif not is_player_id(player):
        errors[f"{path}.player"] = "Must be 1 to 64 letters, digits, '_', '.' or '-'."
    ip = raw.get("ip")
    if not isinstance(ip, str):
        errors[f"{path}.ip"] = "Required: the player's IPv4 or IPv6 address."
    device = raw.get("device")
    if device is not None:
        _string(device, f"{path}.device", errors, max_length=256)
    score = raw.get("score")
    if score is not None and not (_is_int(score) and abs(score) <= MAX_ABS_SCORE):
        errors[f"{path}.score"] = f"Must be an integer from -{MAX_ABS_SCORE} to {MAX_ABS_SCORE}."
    quit_ = raw.get("quit", False)
    if not isinstance(quit_, bool):
        errors[f"{path}.quit"] = "Must be true or false."
    team = raw.get("team")
    if team is not None:
        if _is_int(team):
            team = str(team)
        _string(team, f"{path}.team", errors, max_length=32)
    if len(errors) > before:
        return None
    try:
        ip_hash = hash_ip(ip)
    except ValueError:
        errors[f"{path}.ip"] = "Not a valid IPv4 or IPv6 address."
        return None
    return Entry(
        player=player,
        ip_hash=ip_hash,
        device_hash=hash_device(device) if device is not None else None,
        score=score,
        quit=quit_,
        team=team,
        fields={k: v for k, v in raw.items() if k not in COMMON_PLAYER_KEYS},
    )


def storable_text(text: str) -> bool:
    """Whether PostgreSQL can store the string: no NUL, and valid Unicode (JSON's "\\ud800" escape decodes to
    an unpaired surrogate, which no UTF-8 database column can hold).

    Public because every door that stores text a client sent (game bodies here, report descriptions in
    ``moderation.api``) must refuse such a string with a 400 before it reaches the database as a 500."""
    if "\x00" in text:
        return False
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_UNSTORABLE = "Contains a NUL character or an unpaired surrogate."
_SCALARS = (int, float, bool, type(None))


def refused_part(value: Any) -> tuple[str, str] | None:
    """(JSON path, reason) of the first part of the body that cannot be stored as sent, if any: a string (value
    or key) the database cannot hold, or nesting deeper than MAX_DEPTH.

    Such a body must be refused here with a 400, never reach the database (or the fingerprint) and come back
    as a 500. Every body of a batch is asked, so a body ``_plainly_storable`` clears is not walked at all, and the
    walk builds a path only for what it refuses.
    """
    if _plainly_storable(value):
        return None
    found = _refused_steps(value, 0)
    if found is None:
        return None
    steps, reason = found
    return ".".join(str(step) for step in reversed(steps)), reason


_ESCAPED_NUL = b"\\u0000"


def _plainly_storable(value: Any) -> bool:
    """True only when the walk would find nothing, decided at C speed (a batch's 500 walks were a third of its
    parse): orjson refuses to write a string holding an unpaired surrogate (and anything unusual, a key that is no
    string, an integer past 64 bits), writes a NUL only as the escape ``\\u0000``, and no body nests deeper than
    its number of objects and lists (each bracket, even one inside a string, counts). False is no verdict: the
    walk then decides, and names the path."""
    try:
        written = orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError
        return False
    return _ESCAPED_NUL not in written and written.count(b"[") + written.count(b"{") <= MAX_DEPTH


def _refused_steps(value: Any, depth: int) -> tuple[list[Any], str] | None:
    """The refused part's path as steps from the part up to ``value`` (innermost first), and the reason."""
    if isinstance(value, str):
        return None if storable_text(value) else ([], _UNSTORABLE)
    if isinstance(value, _SCALARS) or not isinstance(value, dict | list):
        return None
    if depth >= MAX_DEPTH:
        return [], f"Nested more than {MAX_DEPTH} levels deep."
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for step, item in items:
        if isinstance(step, str) and not storable_text(step):
            return [step], _UNSTORABLE
        if isinstance(item, _SCALARS):
            continue
        found = _refused_steps(item, depth + 1)
        if found is not None:
            found[0].append(step)
            return found
    return None


def _finished_at(raw: Any, errors: dict[str, str], now: datetime) -> datetime | None:
    if raw is None:
        return None
    try:
        moment = parse_datetime(raw) if isinstance(raw, str) else None
    except ValueError:  # well formed but impossible: 2026-02-30, an offset of +25:00
        moment = None
    if moment is None or moment.tzinfo is None:
        errors["finished_at"] = "Must be an ISO 8601 date-time with a timezone, e.g. 2026-11-29T12:00:00Z."
        return None
    if moment < EARLIEST_FINISH:
        errors["finished_at"] = f"Must not be before {EARLIEST_FINISH.date().isoformat()}."
        return None
    if moment > now + CLOCK_SKEW:
        errors["finished_at"] = f"Must not be more than {CLOCK_SKEW.seconds // 60} minutes ahead of Arena's clock."
        return None
    return moment


def refuse_unstorable(body: Any) -> None:
    """Raise ``InvalidInput`` for the first part of a body no column can hold (``refused_part``): every door that
    stores what it is sent (games, tickets, preferences) asks this before anything else."""
    refused = refused_part(body)
    if refused is not None:
        path, reason = refused
        # The path may hold the very character at fault: escaped, so the error body itself can be sent.
        path = path.encode("utf-8", "backslashreplace").decode("utf-8")
        raise InvalidInput("invalid_input", "A value cannot be stored as sent; see fields.", {path: reason})


def parse_game(body: Any, *, now: datetime | None = None) -> GameInput:
    """Raise ``InvalidInput`` naming every bad value, or return the typed input with IPs already hashed."""
    now = now or timezone.now()
    if not isinstance(body, dict):
        raise InvalidInput("invalid_input", "The game must be a JSON object.", {"body": "Must be an object."})
    refuse_unstorable(body)
    errors: dict[str, str] = {}
    for key in body.keys() - TOP_LEVEL:
        errors[str(key)] = unknown_field(key, TOP_LEVEL - body.keys())
    table_id = _string(body.get("table_id"), "table_id", errors, max_length=64)
    game = _string(body.get("game"), "game", errors, max_length=32)
    variant = body.get("variant", {})
    if not isinstance(variant, dict):
        errors["variant"] = "Must be an object."
    rated = body.get("rated", True)
    if not isinstance(rated, bool):
        errors["rated"] = "Must be true or false."
    details = body.get("details", {})
    if details is None:
        details = {}
    if not isinstance(details, dict):
        errors["details"] = "Must be an object."
    finished_at = _finished_at(body.get("finished_at"), errors, now)
    raw_players = body.get("players")
    players: list[Entry] = []
    if not isinstance(raw_players, list) or not 1 <= len(raw_players) <= MAX_PLAYERS:
        errors["players"] = f"Must be a list of 1 to {MAX_PLAYERS} player results."
    else:
        for index, raw in enumerate(raw_players):
            parsed = _player(raw, index, errors)
            if parsed is not None:
                players.append(parsed)
    if errors:
        raise InvalidInput("invalid_input", "Some values are missing or invalid; see fields.", errors)
    return GameInput(
        table_id=table_id,
        title=game,
        variant=variant,
        rated=rated,
        finished_at=finished_at or now,
        players=tuple(players),
        details=details,
        finished_at_sent=finished_at is not None,
    )
