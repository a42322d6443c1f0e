"""Railroad Ink: each player draws routes on their own board; ties go to whoever made **fewer** errors.

Required per-player field ``errors`` (>= 0). One player may play alone: such a game is recorded, never rated.

``details`` shape (optional; every key optional, but ``players`` must then name every player)::

    {"rounds": 7,                                  # 7 in the base game, 6 with an expansion
     "players": {
        "alice": {"networks": [3, 5, 2],           # exits connected by each network, 1..12 each
                  "longest_highway": 6, "longest_railway": 4,
                  "central": 5,                    # central spaces drawn on, 0..9
                  "errors": 3,                     # optional; when sent, equal to alice's errors field
                  "expansion_points": 0},          # optional, default 0; only with an expansion
        ...}}

Score = sum of network values + highway + railway + central - errors + expansion points. The details are per
player (each board is scored alone), unlike the per-round tables of the trick-taking games.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import (
    GameRules,
    IntField,
    check_totals,
    detail_int,
    detail_list,
    detail_players,
    detail_record,
    path,
)
from arena.games.results import Entry, Result, RuleViolation

# Points of a network by the number of exits it connects (0..12): the main way to score.
NETWORK_POINTS = (0, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 45)
MAX_EXITS = len(NETWORK_POINTS) - 1  # a board has 12 exits
CENTRAL_SPACES = 9  # the 3x3 middle of the board
BASE_ROUNDS = 7
EXPANSION_ROUNDS = 6  # every expansion shortens the game by a round
NO_EXPANSION = "none"

BOARD_KEYS = ("networks", "longest_highway", "longest_railway", "central")
OPTIONAL_BOARD_KEYS = ("errors", "expansion_points")


def board_score(
    networks: Sequence[int], highway: int, railway: int, central: int, errors: int, expansion_points: int = 0
) -> int:
    """A board's final score, as the rules add it up."""
    networks_points = sum(NETWORK_POINTS[exits] for exits in networks)
    return networks_points + highway + railway + central - errors + expansion_points


class RailroadInk(GameRules):
    title = "railroad_ink"
    name = "Railroad Ink"
    min_players = 1
    max_players = 6
    recommended_players = 4
    variants = {"expansion": (NO_EXPANSION, "river", "lake", "meteor", "lava")}
    player_fields = {"errors": IntField(minimum=0)}
    details_keys = frozenset({"rounds", "players"})
    details_schema = {
        "rounds": {
            "type": "integer",
            "enum": [EXPANSION_ROUNDS, BASE_ROUNDS],
            "description": "Rounds played: 7 in the base game, 6 with an expansion.",
        },
        "players": {
            "type": "object",
            "description": "One board per player, every player named.",
            "additionalProperties": {
                "type": "object",
                "required": list(BOARD_KEYS),
                "additionalProperties": False,
                "properties": {
                    "networks": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": MAX_EXITS}},
                    "longest_highway": {"type": "integer", "minimum": 0},
                    "longest_railway": {"type": "integer", "minimum": 0},
                    "central": {"type": "integer", "minimum": 0, "maximum": CENTRAL_SPACES},
                    "errors": {"type": "integer", "minimum": 0},
                    "expansion_points": {"type": "integer", "minimum": 0},
                },
            },
        },
    }

    def simulated_result(self, n: int, rnd: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        scores = sorted(rnd.sample(range(10, 80), n), reverse=True)
        return [{"score": score, "errors": 0} for score in scores], {"expansion": "none"}

    def rank_key(self, entry: Entry) -> tuple[Any, ...]:
        return (entry.score, -entry.fields["errors"])

    def check(self, variant: Mapping[str, Any], result: Result, details: Mapping[str, Any]) -> None:
        expansion = variant["expansion"] != NO_EXPANSION
        if "rounds" in details:
            expected = EXPANSION_ROUNDS if expansion else BASE_ROUNDS
            if detail_int(details["rounds"], "details.rounds", 0) != expected:
                raise RuleViolation(
                    "round_count", f"This variant lasts {expected} rounds, not {details['rounds']}.", "details.rounds"
                )
        if "players" in details:
            players = [entry.player for entry in result.entries]
            boards = detail_players(details["players"], "details.players", players)
            totals = {
                entry.player: self._board_total(boards[entry.player], entry, expansion) for entry in result.entries
            }
            check_totals(result.entries, totals, "board details")

    def _board_total(self, raw: Any, entry: Entry, expansion: bool) -> int:
        where = path("details.players", entry.player)
        board = detail_record(raw, where, BOARD_KEYS, OPTIONAL_BOARD_KEYS)
        networks = [
            detail_int(exits, path(where, "networks", i), 1, MAX_EXITS)
            for i, exits in enumerate(detail_list(board["networks"], path(where, "networks")))
        ]
        highway = detail_int(board["longest_highway"], path(where, "longest_highway"), 0)
        railway = detail_int(board["longest_railway"], path(where, "longest_railway"), 0)
        central = detail_int(board["central"], path(where, "central"), 0, CENTRAL_SPACES)
        errors = entry.fields["errors"]
        if "errors" in board and detail_int(board["errors"], path(where, "errors"), 0) != errors:
            message = f"{entry.player}'s details count {board['errors']} errors, the player entry {errors}."
            raise RuleViolation("errors_mismatch", message, path(where, "errors"))
        extra = detail_int(board.get("expansion_points", 0), path(where, "expansion_points"), 0)
        if extra and not expansion:
            raise RuleViolation(
                "expansion_points_not_allowed",
                "The base game has no expansion points.",
                path(where, "expansion_points"),
            )
        return board_score(networks, highway, railway, central, errors, extra)
