"""What a recorded game means, so that a resend is recognised by its meaning rather than by its bytes.

docs/api.md "Resending a game": a game server that rebuilds its body on retry may make a default explicit
(``"rated": true``, ``"variant": {}``), leave out an optional value that follows from others (Nile's ``score``),
or list the players in another order. None of that changes the game, so none of it may be a ``table_conflict``.
The meaning is therefore:

- the variant with every option's default filled in (the rules' ``normalise_variant``, already done by ``judge``);
- ``rated`` as a boolean (default true), ``details`` as an object (null and absent are ``{}``);
- ``finished_at`` only when it was sent: a resend that leaves it out means "when it finished", whatever was stored;
- the players keyed by player id, so their order in the list has no meaning (no game's rules read it: places come
  from scores and fields, teams from ``team``); each with its address and device as hashes, its score as the
  rules imply it (``implied_score``), ``quit`` (default false), its team as the rules read it and its own fields.

Order keeps its meaning inside ``details`` (Wizard's rounds and Spades' hands are in play order, and Spades'
bags penalty depends on it) and inside list fields (Nile's crop piles, one per crop type): those compare as sent.

Pure (no Django): recording builds the meaning of the game it was sent and of the game it stored, and names the
top-level fields or players that differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from arena.games.base import GameRules
from arena.games.results import Entry


def game_meaning(
    rules: GameRules,
    *,
    variant: Mapping[str, Any],
    rated: bool,
    finished_at: datetime | None,
    details: Mapping[str, Any] | None,
    seats: Iterable[Entry],
) -> dict[str, Any]:
    """The game as a JSON-ready document whose equality is the equality of meaning (see the module docstring).

    ``variant`` must be normalised already (what ``judge`` returns, what is stored); ``finished_at`` is None when
    the body left it out."""
    meaning: dict[str, Any] = {
        "game": rules.title,
        "variant": dict(variant),
        "rated": rated,
        "details": dict(details or {}),
        "players": {
            seat.player: {
                "ip": seat.ip_hash,
                "device": seat.device_hash,
                "score": rules.implied_score(seat.score, seat.fields),
                "quit": seat.quit,
                "team": rules.implied_team(seat.team),
                "fields": dict(seat.fields),
            }
            for seat in seats
        },
    }
    if finished_at is not None:
        meaning["finished_at"] = finished_at.astimezone(UTC).isoformat()
    return meaning


_SENT_ONLY = ("finished_at",)  # compared only when the resend carries it


def differing_fields(stored: Mapping[str, Any], sent: Mapping[str, Any], order: Mapping[str, int]) -> dict[str, str]:
    """The JSON paths of the resent body (``players.<index>.<key>``, by ``order``: player id -> index in the body
    sent) whose meaning differs from the stored game's, each with a sentence; empty when both mean the same game.

    Addresses and devices are compared as hashes and never shown; other values say what was recorded."""
    fields: dict[str, str] = {}
    for key in ("game", "variant", "rated", "details", *_SENT_ONLY):
        if key not in sent:
            continue
        if stored.get(key) != sent[key]:
            shown = stored.get(key)
            if key == "finished_at" and isinstance(shown, str):
                shown = zulu(shown)  # the fingerprint keeps +00:00; an answer shows every time with Z
            fields[key] = _recorded_as(shown)
    stored_players, sent_players = stored["players"], sent["players"]
    left_out = sorted(set(stored_players) - set(sent_players))
    if left_out:
        fields["players"] = f"Leaves out {', '.join(left_out)}, recorded at this table."
    for player, seat in sent_players.items():
        index = order[player]
        before = stored_players.get(player)
        if before is None:
            fields[f"players.{index}.player"] = f"{player} was not at this table as recorded."
            continue
        for key in ("ip", "device"):
            if before[key] != seat[key]:
                fields[f"players.{index}.{key}"] = "Differs from the recorded one."
        for key in ("score", "quit", "team"):
            if before[key] != seat[key]:
                fields[f"players.{index}.{key}"] = _recorded_as(before[key])
        for key in sorted(before["fields"].keys() | seat["fields"].keys()):
            if before["fields"].get(key) != seat["fields"].get(key):
                fields[f"players.{index}.{key}"] = _recorded_as(before["fields"].get(key))
    return fields


def zulu(text: str) -> str:
    """An ISO 8601 UTC time as every answer writes it (docs/api.md, times): ``...Z``, not ``...+00:00``."""
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _recorded_as(value: Any) -> str:
    if value is None:
        return "Differs from the recorded game, which has none."
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    if len(text) > 120:
        return "Differs from the recorded game."
    return f"Differs from the recorded game: {text}."
