"""Nile DeLuxor: the winner is whoever stored the most cards in their *smallest* crop pile.

Places come from the required per-player field ``crops`` (cards in storage per crop type: 5 counts with 2-4
players, 6 with 5, 7 with 6), not from ``score``: sort each player's counts ascending and compare the lists
element by element; the larger first differing count wins, equal lists share a place. ``score`` may be
omitted; when sent it must equal the smallest pile, so it cannot disagree with the places. No details.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any

from arena.games.base import GameRules, is_int, path
from arena.games.results import Entry, Result, RuleViolation

# Crop types in play by player count: more players bring more crops into the game.
CROP_TYPES: Mapping[int, int] = {2: 5, 3: 5, 4: 5, 5: 6, 6: 7}


@dataclasses.dataclass(frozen=True)
class CropsField:
    """The ``crops`` list: one non-negative count per crop type in play."""

    required: bool = True

    def json_schema(self) -> dict[str, Any]:
        return {
            "type": "array",
            "items": {"type": "integer", "minimum": 0},
            "minItems": min(CROP_TYPES.values()),
            "maxItems": max(CROP_TYPES.values()),
            "description": "Cards in storage per crop type: 5 counts with 2-4 players, 6 with 5, 7 with 6.",
        }

    def problem(self, value: Any, player_count: int) -> str | None:
        expected = CROP_TYPES[player_count]
        if not isinstance(value, (list, tuple)) or not all(is_int(count) and count >= 0 for count in value):
            return "must be a list of counts (integers >= 0)"
        if len(value) != expected:
            return f"must have {expected} counts with {player_count} players, not {len(value)}"
        return None


def storage_key(crops: list[int]) -> tuple[int, ...]:
    """Comparable form of a storage: piles smallest first, so the smallest pile decides, then the next..."""
    return tuple(sorted(crops))


class Nile(GameRules):
    title = "nile"
    name = "Nile DeLuxor"
    min_players = 2
    max_players = 6
    recommended_players = 4
    score_required = False
    player_fields = {"crops": CropsField()}

    def simulated_result(self, n: int, rnd: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        piles = CROP_TYPES[n]
        return [{"crops": [count] * piles} for count in sorted(rnd.sample(range(0, 12), n), reverse=True)], {}

    def rank_key(self, entry: Entry) -> tuple[Any, ...]:
        return storage_key(entry.fields["crops"])

    def check(self, variant: Mapping[str, Any], result: Result, details: Mapping[str, Any]) -> None:
        for index, entry in enumerate(result.entries):
            smallest = min(entry.fields["crops"])
            if entry.score is not None and entry.score != smallest:
                message = f"{entry.player}'s score must be the smallest pile, {smallest}, not {entry.score}."
                raise RuleViolation("score_mismatch", message, path("players", index, "score"))

    def implied_score(self, score: int | None, fields: Mapping[str, Any]) -> int | None:
        """A score left out means the smallest pile, the only score ``check`` accepts."""
        if score is None and fields.get("crops"):
            smallest: int = min(fields["crops"])
            return smallest
        return score
