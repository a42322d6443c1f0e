"""Wizard: a trick-taking game where the points come from predicting your own tricks exactly.

Places by score. The optional details let us re-add the score from the bids, so a game server cannot report a
total its own rounds do not support.

``details`` shape::

    {"rounds": [                                   # one object per round, in play order
        {"alice": {"bid": 2, "tricks": 2}, "bob": {"bid": 0, "tricks": 1}, ...},
        ...
    ]}

Every round names every player and nobody else; paths point in as ``details.rounds.<k>.<player>.bid``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import GameRules, check_totals, detail_int, detail_list, detail_players, detail_record, path
from arena.games.results import Entry, Result, RuleViolation

DECK_SIZE = 60  # 52 cards + 4 wizards + 4 jesters: the deck fixes the number of rounds
EXACT_BID_BONUS = 20  # paid for hitting the bid, even a bid of 0
POINTS_PER_TRICK = 10  # paid per trick when the bid is hit
PENALTY_PER_TRICK_OFF = 10  # lost per trick of difference when the bid is missed
FIVE_ROUNDS = 5  # the short variant: five full deals

# Amigo variant: ten rounds with a fixed number of cards per player (seed 000); none exists for 6 players.
AMIGO_CARDS: Mapping[int, tuple[int, ...]] = {
    3: (2, 4, 6, 8, 10, 12, 14, 16, 18, 20),
    4: (1, 3, 5, 7, 9, 11, 12, 13, 14, 15),
    5: (2, 4, 5, 6, 7, 8, 9, 10, 11, 12),
}


def cards_per_round(rounds: str, players: int) -> tuple[int, ...]:
    """Cards dealt to each player in each round, for the ``rounds`` variant and the player count."""
    full_deal = DECK_SIZE // players
    if rounds == "standard":
        return tuple(range(1, full_deal + 1))
    if rounds == "five_rounds":
        return (full_deal,) * FIVE_ROUNDS
    return AMIGO_CARDS[players]


def round_score(bid: int, tricks: int) -> int:
    """Points for one round: a bonus plus the tricks when the bid is exact, else a loss per trick off."""
    if bid == tricks:
        return EXACT_BID_BONUS + POINTS_PER_TRICK * tricks
    return -PENALTY_PER_TRICK_OFF * abs(bid - tricks)


class Wizard(GameRules):
    title = "wizard"
    name = "Wizard"
    min_players = 3
    max_players = 6
    recommended_players = 4
    variants = {"rounds": ("standard", "five_rounds", "amigo")}
    details_keys = frozenset({"rounds"})
    details_schema = {
        "rounds": {
            "type": "array",
            "description": "One object per round, in play order: each player's bid and tricks.",
            "items": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "bid": {"type": "integer", "minimum": 0, "maximum": DECK_SIZE // 3},
                        "tricks": {"type": "integer", "minimum": 0, "maximum": DECK_SIZE // 3},
                    },
                    "required": ["bid", "tricks"],
                    "additionalProperties": False,
                },
            },
        }
    }

    simulated_sizes = (3, 5)

    def simulated_result(self, n: int, rnd: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return [{"score": score * 10} for score in sorted(rnd.sample(range(-10, 40), n), reverse=True)], {}

    def check(self, variant: Mapping[str, Any], result: Result, details: Mapping[str, Any]) -> None:
        count = len(result.entries)
        if variant["rounds"] == "amigo" and count not in AMIGO_CARDS:
            raise RuleViolation(
                "variant_player_count", f"The amigo variant is not played with {count} players.", "variant.rounds"
            )
        if "rounds" in details:
            deals = cards_per_round(variant["rounds"], count)
            check_totals(result.entries, self._totals(details["rounds"], deals, result.entries), "rounds")

    def player_range(self, variant: Mapping[str, Any]) -> tuple[int, int]:
        """Amigo has card counts for 3 to 5 players only (docs/games.md)."""
        low, high = super().player_range(variant)
        if variant.get("rounds") == "amigo":
            low, high = max(low, min(AMIGO_CARDS)), min(high, max(AMIGO_CARDS))
        return low, high

    def _totals(self, raw: Any, deals: Sequence[int], entries: Sequence[Entry]) -> dict[str, int]:
        rounds = detail_list(raw, "details.rounds")
        if len(rounds) != len(deals):
            message = f"This variant has {len(deals)} rounds, the details have {len(rounds)}."
            raise RuleViolation("round_count", message, "details.rounds")
        players = [entry.player for entry in entries]
        totals = dict.fromkeys(players, 0)
        for number, (raw_round, cards) in enumerate(zip(rounds, deals, strict=True)):
            where = path("details.rounds", number)
            table = detail_players(raw_round, where, players)
            tricks_played = 0
            for player in players:
                record = detail_record(table[player], path(where, player), ("bid", "tricks"))
                bid = detail_int(record["bid"], path(where, player, "bid"), 0, cards, code="bid_out_of_range")
                tricks = detail_int(
                    record["tricks"], path(where, player, "tricks"), 0, cards, code="tricks_out_of_range"
                )
                tricks_played += tricks
                totals[player] += round_score(bid, tricks)
            if tricks_played != cards:
                # Said 1-based for the person reading it (round 1 is the first); the path stays 0-based.
                message = f"Round {number + 1} dealt {cards} cards each, but {tricks_played} tricks were taken."
                raise RuleViolation("tricks_total", message, where)
        return totals
