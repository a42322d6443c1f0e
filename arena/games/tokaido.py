"""Tokaido: travellers collect points along the road; ties go to whoever earned more achievement cards.

Required per-player field ``achievements`` (0..7, the number of achievement cards in the box). No details.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.base import GameRules, IntField
from arena.games.results import Entry

ACHIEVEMENT_CARDS = 7  # the most achievement cards one player can hold


class Tokaido(GameRules):
    title = "tokaido"
    name = "Tokaido"
    min_players = 2
    max_players = 5
    recommended_players = 4
    player_fields = {"achievements": IntField(0, ACHIEVEMENT_CARDS)}

    def simulated_result(self, n: int, rnd: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        scores = sorted(rnd.sample(range(30, 120), n), reverse=True)
        return [{"score": score, "achievements": 0} for score in scores], {}

    def rank_key(self, entry: Entry) -> tuple[Any, ...]:
        return (entry.score, entry.fields["achievements"])
