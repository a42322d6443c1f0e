"""Hanabi: the players win or lose together, so there are no places, only the team's score.

The rating stage plays the team against an imaginary bot (docs/ratings.md); this module only says which score that
duel uses. Hanabi has no leaderboard: its Elo is too easy to boost by talking outside the game.

``details`` shape (optional)::

    {"strikes": 2}                                 # fuse tokens lost, 0..3; 3 strikes is a loss, rated as 0

``team`` may be left out or be the same on every entry: all players of a game are the one team anyway.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import GameRules, detail_int, path
from arena.games.results import Entry, Result, RuleViolation

# The variant that picks the deck (the rating stage reads it too: each deck class has its own Hanabot table).
DECK = "deck"
# The highest score per deck: five colours of 5 for the normal deck, six colours for the others.
MAX_SCORE: Mapping[str, int] = {"normal": 25, "tricky": 30, "hard": 30, "very_difficult": 30}
LOSING_STRIKES = 3  # the third strike ends the game as a loss
UNRATED_DECKS = frozenset({"hard"})  # the 55-card deck has no Hanabot table


class Hanabi(GameRules):
    title = "hanabi"
    name = "Hanabi"
    min_players = 2
    max_players = 5
    recommended_players = None
    table_recommended = 3
    cooperative = True
    team_play = True
    has_leaderboard = False
    variants = {DECK: ("normal", "tricky", "hard", "very_difficult")}
    details_keys = frozenset({"strikes"})
    details_schema = {
        "strikes": {
            "type": "integer",
            "minimum": 0,
            "maximum": LOSING_STRIKES,
            "description": "Fuse tokens lost; 3 is a loss, rated as a score of 0.",
        }
    }

    def simulated_result(self, n: int, rnd: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        score = rnd.randint(5, 25)  # cooperative: one score for the table
        return [{"score": score} for _ in range(n)], {"deck": "normal"}

    def check_teams(self, entries: Sequence[Entry]) -> None:
        teams = {entry.team for entry in entries}
        if len(teams) > 1:
            index = next(i for i, entry in enumerate(entries) if entry.team != entries[0].team)
            raise RuleViolation(
                "invalid_teams", "Hanabi is played by one team: every player shares it.", path("players", index, "team")
            )

    def check(self, variant: Mapping[str, Any], result: Result, details: Mapping[str, Any]) -> None:
        deck = variant[DECK]
        if result.rated and not self.rated_variant(variant):
            raise RuleViolation(
                "variant_not_rated", f"The {deck!r} deck can only be recorded with rated: false.", "variant.deck"
            )
        entries = result.entries
        team_score = entries[0].score
        if team_score is None:  # refused before this, by the shared checks (score_required)
            raise RuleViolation("missing_field", f"{entries[0].player} has no score.", "players.0.score")
        for index, entry in enumerate(entries):
            if entry.score != team_score:
                raise RuleViolation(
                    "team_score_mismatch", "Every player must report the team's score.", path("players", index, "score")
                )
        if not 0 <= team_score <= MAX_SCORE[deck]:
            raise RuleViolation(
                "score_out_of_range",
                f"A {deck!r} deck scores 0 to {MAX_SCORE[deck]}, not {team_score}.",
                "players.0.score",
            )
        if "strikes" in details:
            detail_int(details["strikes"], "details.strikes", 0, LOSING_STRIKES, code="strikes_out_of_range")

    def rated_variant(self, variant: Mapping[str, Any]) -> bool:
        """A deck with no Hanabot table (the hard one) is recorded unrated only (docs/games.md)."""
        return variant.get(DECK) not in UNRATED_DECKS

    def implied_team(self, team: str | None) -> str | None:
        """Every player is on the one team, named or not: a team sent or left out means the same game."""
        return None

    def coop_score(self, variant: Mapping[str, Any], result: Result, details: Mapping[str, Any]) -> int | None:
        """Three strikes is a loss, so the duel against the bot is played with a score of 0."""
        if details.get("strikes") == LOSING_STRIKES:
            return 0
        return result.entries[0].score
