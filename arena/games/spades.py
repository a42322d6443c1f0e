"""Spades: four players bid tricks, alone or in two partnerships.

Places by score (the team's score in partnerships, where each partnership is one side). A tie for first place
is refused: at the table the rules play another hand until someone leads alone. The tie is judged on the final
places, after a quitter has been moved to last.

``details`` shape (the same with and without partnerships: every player bids on their own)::

    {"hands": [                                    # one object per hand, in play order
        {"a": {"bid": 3, "tricks": 4}, "b": {"bid": 4, "tricks": 3}, ...},
        ...
    ]}

A side's contract is judged on its bid and tricks, which for a partnership are the partners' sums. With
``bags_penalty`` the overtricks (bags) accumulate per side across the hands in order; each time they reach 10
the side loses 100 and the count drops by 10. The ``target`` is not checked against the scores: a game may end
early when someone quits.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import GameRules, check_totals, detail_int, detail_list, detail_players, detail_record, path
from arena.games.results import Entry, Ranking, Result, RuleViolation

TRICKS_PER_HAND = 13  # the whole 52-card pack is dealt to four players
MIN_BID = 1  # nobody may pass or bid nil in these rules
POINTS_PER_BID_TRICK = 10  # a made contract scores 10 per trick bid...
POINTS_PER_OVERTRICK = 1  # ...plus 1 per trick beyond it (a "bag")
BAG_LIMIT = 10  # with bags_penalty, this many accumulated bags...
BAG_PENALTY = 100  # ...cost this many points
TEAM_COUNT = 2
TEAM_SIZE = 2
PARTNERSHIP_SIDES = 2  # two partnerships are two sides for the Elo multiplier


def hand_score(bid: int, tricks: int) -> tuple[int, int]:
    """(points, bags) of a side in a hand: a made contract pays bid and bags, a broken one costs the bid."""
    if tricks >= bid:
        bags = tricks - bid
        return POINTS_PER_BID_TRICK * bid + POINTS_PER_OVERTRICK * bags, bags
    return -POINTS_PER_BID_TRICK * bid, 0


def side_total(hands: Sequence[tuple[int, int]], bags_penalty: bool) -> int:
    """A side's game score from its (bid, tricks) per hand, applying the bags penalty in hand order."""
    total = 0
    bags = 0
    for bid, tricks in hands:
        points, new_bags = hand_score(bid, tricks)
        total += points
        if bags_penalty:
            bags += new_bags
            while bags >= BAG_LIMIT:
                total -= BAG_PENALTY
                bags -= BAG_LIMIT
    return total


def is_partnership(entries: Sequence[Entry]) -> bool:
    return any(entry.team is not None for entry in entries)


class Spades(GameRules):
    title = "spades"
    name = "Spades"
    min_players = 4
    max_players = 4
    recommended_players = 4
    variants = {"target": (500, 300), "bags_penalty": (False, True)}
    team_play = True
    details_keys = frozenset({"hands"})
    details_schema = {
        "hands": {
            "type": "array",
            "description": "One object per hand, in play order: each player's bid and tricks.",
            "items": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "bid": {"type": "integer", "minimum": MIN_BID, "maximum": TRICKS_PER_HAND},
                        "tricks": {"type": "integer", "minimum": 0, "maximum": TRICKS_PER_HAND},
                    },
                    "required": ["bid", "tricks"],
                    "additionalProperties": False,
                },
            },
        }
    }

    def simulated_result(self, n: int, rnd: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return [{"score": score * 10} for score in sorted(rnd.sample(range(-10, 40), n), reverse=True)], {}

    def check_teams(self, entries: Sequence[Entry]) -> None:
        if not is_partnership(entries):
            return
        teams: list[str] = []
        for index, entry in enumerate(entries):
            if entry.team is None:
                raise RuleViolation(
                    "invalid_teams", "Either every player has a team or none has.", path("players", index, "team")
                )
            teams.append(entry.team)
        sizes: dict[str, int] = {}
        for team in teams:
            sizes[team] = sizes.get(team, 0) + 1
        if len(sizes) != TEAM_COUNT or any(size != TEAM_SIZE for size in sizes.values()):
            raise RuleViolation("invalid_teams", "Partnership Spades is two teams of two.", "players")
        team_scores: dict[str, int | None] = {}
        for index, (entry, team) in enumerate(zip(entries, teams, strict=True)):
            reported = team_scores.setdefault(team, entry.score)
            if entry.score != reported:
                raise RuleViolation(
                    "team_score_mismatch",
                    f"Partners in team {entry.team!r} report different scores.",
                    path("players", index, "score"),
                )

    def check(self, variant: Mapping[str, Any], result: Result, details: Mapping[str, Any]) -> None:
        if "hands" in details:
            totals = self._totals(details["hands"], result.entries, variant["bags_penalty"])
            check_totals(result.entries, totals, "hands")

    def side_groups(self, entries: Sequence[Entry]) -> list[tuple[Entry, ...]]:
        if not is_partnership(entries):
            return super().side_groups(entries)
        teams: dict[str | None, list[Entry]] = {}
        for entry in entries:
            teams.setdefault(entry.team, []).append(entry)
        return [tuple(members) for members in teams.values()]

    def recommended_sides(self, entries: Sequence[Entry]) -> int | None:
        return PARTNERSHIP_SIDES if is_partnership(entries) else self.recommended_players

    def judge(self, result: Result) -> Ranking:
        ranking = super().judge(result)
        if sum(1 for side in ranking.sides if side.place == 1) > 1:
            raise RuleViolation("tie_not_allowed", "A tie for first place is played out with another hand.", "players")
        return ranking

    def _totals(self, raw: Any, entries: Sequence[Entry], bags_penalty: bool) -> dict[str, int]:
        players = [entry.player for entry in entries]
        groups = [tuple(entry.player for entry in group) for group in self.side_groups(entries)]
        per_side: dict[tuple[str, ...], list[tuple[int, int]]] = {group: [] for group in groups}
        for number, raw_hand in enumerate(detail_list(raw, "details.hands")):
            where = path("details.hands", number)
            table = detail_players(raw_hand, where, players)
            bids: dict[str, int] = {}
            tricks: dict[str, int] = {}
            for player in players:
                record = detail_record(table[player], path(where, player), ("bid", "tricks"))
                bids[player] = detail_int(
                    record["bid"], path(where, player, "bid"), MIN_BID, TRICKS_PER_HAND, code="bid_out_of_range"
                )
                tricks[player] = detail_int(
                    record["tricks"], path(where, player, "tricks"), 0, TRICKS_PER_HAND, code="tricks_out_of_range"
                )
            taken = sum(tricks.values())
            if taken != TRICKS_PER_HAND:
                message = f"Hand {number + 1} has {taken} tricks, not {TRICKS_PER_HAND}."  # 1-based; the path is not
                raise RuleViolation("tricks_total", message, where)
            for group in groups:
                per_side[group].append((sum(bids[p] for p in group), sum(tricks[p] for p in group)))
        return {player: side_total(per_side[group], bags_penalty) for group in groups for player in group}
