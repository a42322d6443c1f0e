"""What a game server reports and what judging it returns: the result value objects, and the refusal with its
stable codes. Plain data with no rules, so the API, the recording and the rating stage can hold a result without
importing the games' checks (``arena.games.base``); callers import these names from here.

Paths in ``RuleViolation.field`` use the request body's JSON layout with 0-based list indices
(``players.2.score``, ``details.rounds.3.alice.bid``), so a game server can point at the value it sent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

# Every code a rules module may raise, with its meaning. Kept here so the API docs and the tests have one
# list; a unit test checks that no module raises a code missing from it.
ERROR_CODES: Mapping[str, str] = {
    "unknown_variant_option": "The variant names an option this game does not have.",
    "invalid_variant": "A variant option has a value this game does not allow, or the variant is no object.",
    "variant_player_count": "The chosen variant cannot be played with this many players.",
    "variant_not_rated": "This variant can only be recorded with rated: false.",
    "player_count": "Too few or too many players for this game.",
    "duplicate_player": "The same player appears twice.",
    "too_many_quitters": "More than one player is marked quit.",
    "missing_field": "A required per-player field is missing.",
    "invalid_field": "A per-player field has the wrong type or is out of range.",
    "unknown_field": "A player entry carries a field this game does not know.",
    "teams_not_allowed": "This game is not played in teams.",
    "invalid_teams": "The teams do not form a valid line-up for this game.",
    "team_score_mismatch": "Players of one team report different scores.",
    "score_out_of_range": "The score is outside what the game allows.",
    "score_mismatch": "The reported score differs from the one computed from the details.",
    "invalid_details": "The details are malformed (wrong type, unknown or missing key, impossible value).",
    "unknown_player_in_details": "The details name a player who is not in the game.",
    "missing_player_in_details": "The details leave out a player of the game.",
    "round_count": "The details have the wrong number of rounds for the variant and player count.",
    "bid_out_of_range": "A bid is outside the range the game allows.",
    "tricks_out_of_range": "A player's tricks are negative or more than the cards dealt.",
    "tricks_total": "The tricks of one round do not add up to the tricks played.",
    "strikes_out_of_range": "Hanabi strikes must be 0 to 3.",
    "errors_mismatch": "Railroad Ink: the errors in the details differ from the player's errors field.",
    "expansion_points_not_allowed": "Railroad Ink: expansion points without an expansion.",
    "tie_not_allowed": "Spades: a tie for first place is played out, never recorded.",
}


class RuleViolation(Exception):
    """A result that breaks its game's rules.

    Carries a stable snake_case ``code`` (programs branch on it), a ``message`` for the human reading the
    response, and the JSON ``field`` path of the offending value (None when no single value is at fault).
    """

    def __init__(self, code: str, message: str, field: str | None = None, fields: Mapping[str, str] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        # Every value at fault by path, when one refusal names several (a misspelt field: the missing one and
        # the unknown one beside it). Empty when ``field`` alone says where.
        self.fields: dict[str, str] = dict(fields or {})

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r}, {self.field!r})"


@dataclasses.dataclass(frozen=True)
class Entry:
    """One player's part of a game as a game server reports it: the body parsed (the common fields type-checked
    by the API, ``fields`` raw JSON), the rules' input, and one side of a resend's comparison (as sent or as
    stored, arena/games/meaning.py). One type for all three (docs/architecture.md, "Names"): the rules read the
    result, recording and the meaning read the address and device too, hashed before they get here."""

    player: str
    score: int | None
    quit: bool = False
    team: str | None = None
    fields: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    ip_hash: str = ""
    device_hash: str | None = None


@dataclasses.dataclass(frozen=True)
class Result:
    """A finished game as the game server reported it, before any game rule has been applied."""

    variant: Mapping[str, Any]
    rated: bool
    entries: tuple[Entry, ...]
    details: Mapping[str, Any]


@dataclasses.dataclass(frozen=True)
class Side:
    """Who rates together: one player, or a team (ratings never set teammates against each other)."""

    players: tuple[str, ...]
    place: int | None


@dataclasses.dataclass(frozen=True)
class Ranking:
    """The judged game: everything the rating stage needs, so it never has to re-read the game's rules."""

    variant: dict[str, Any]
    sides: tuple[Side, ...]
    # ``rec`` of the multiplier (docs/ratings.md): the recommended number of sides (teams count as one), None if coop.
    recommended_sides: int | None
    quitter: str | None
    ratable: bool
    coop_score: int | None = None

    @property
    def places(self) -> dict[str, int]:
        """Player -> place, the shape the API shows; empty for cooperative games, which have no places."""
        return {player: side.place for side in self.sides if side.place is not None for player in side.players}
