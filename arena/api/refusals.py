"""The games' refusals in the API's error shape (``infra/api/errors.py``), registered once from ``ArenaConfig.ready``.

The platform's error module knows no game; the core tells it how its own refusals read: a broken rule is a 400
naming the field, a game named in the URL that is no game is a 404 ``unknown_game``, and every ``unknown_game``
(the URL's 404 or a body's 400) lists the titles there are.
"""

from __future__ import annotations

from typing import Any

from arena.games import UnknownGame, all_games
from arena.games.results import RuleViolation
from infra.api.errors import error_body, refusal_body, refusal_code_register, refusal_register
from infra.errors import ArenaError, NotFound


def rule_violation_body(refusal: RuleViolation) -> tuple[int, dict[str, Any]]:
    """A game's rule broken by the body: 400 with the rule's code and the field at fault."""
    fields = refusal.fields or ({refusal.field: refusal.message} if refusal.field else None)
    return 400, error_body(refusal.code, refusal.message, fields)


def unknown_game_in_url(refusal: UnknownGame) -> tuple[int, dict[str, Any]]:
    """A game named in the URL that is no game (a player's history, a leaderboard): 404 ``unknown_game``. A body's
    unknown game is the service's 400 (recording, tickets), refused per item in a batch."""
    return refusal_body(NotFound("unknown_game", f"No game {refusal.args[0]!r}."))


def unknown_game_body(refusal: ArenaError) -> dict[str, Any]:
    """An unknown title answered with the titles there are: a developer who sent "Railroad Ink" or "nile_deluxor"
    learns the spelling from the error itself (docs/games.md lists them too)."""
    titles = ", ".join(game.title for game in all_games())
    fields = {path: f"Unknown game; one of: {titles}." for path in refusal.fields}
    return error_body(refusal.code, f"{refusal.message} The games are: {titles}.", fields)


def refusals_register() -> None:
    refusal_register(RuleViolation, rule_violation_body)
    refusal_register(UnknownGame, unknown_game_in_url)
    refusal_code_register("unknown_game", unknown_game_body)
