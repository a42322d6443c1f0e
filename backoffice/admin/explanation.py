"""The panel's parts of issue 15, kept apart from the pages' own reads so each page gains one include:

- the game page's explanation table (``explanation.html``): every seat's duels, term by term, from the same
  selector as ``GET /api/v1/games/{id}/explain/`` (docs/ratings.md, "Reading an explanation");
- the player page's reputation and cool-down section (``player_reputation.html``), with the *Lift cool-down*
  action (docs/matchmaking.md, "Cool-down"; an audited action, ``moderation.services.cooldowns.player_cooldown_lift``).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from arena.models import Game, Player
from backoffice.admin.confirm import Action, RequiredNoteForm
from moderation import services
from ratings.cooldowns import cooldown_state
from ratings.selectors import game_explanations


def explanation_context(*, game: Game) -> dict[str, Any]:
    """``{"explanation": ...}`` for a rated game (the API's shape), None otherwise. Four queries."""
    found = game_explanations(game_ids=[game.pk]).get(game.pk)
    return {"explanation": found if found and "seats" in found else None}


def cooldown_context(*, player: Player) -> dict[str, Any]:
    """``{"standing": ...}``: reputation (percent, games, quits), a running cool-down and its last length. One
    query."""
    state = cooldown_state(player=player)
    row = state["row"]
    return {
        "standing": {
            "reputation": state["reputation"],
            "running": state["running"],
            "seconds_left": state["seconds_left"],
            "minutes_left": -(-state["seconds_left"] // 60),
            "until": row.cooldown_until if row else None,
            "length_minutes": (row.cooldown_seconds // 60) if row else 0,
            "last_quit_at": row.last_quit_at if row else None,
            "lifted_at": row.lifted_at if row else None,
        }
    }


def _lift(request: HttpRequest, player: Player, form: Any) -> str:
    services.player_cooldown_lift(moderator=request.user, player=player, note=form.cleaned_data["note"])
    return f"{player.handle}'s cool-down is lifted: they may queue again."


def _lift_unavailable(player: Player) -> str | None:
    return None if cooldown_state(player=player)["running"] else f"{player.handle} is not in a cool-down."


LIFT_COOLDOWN = Action(
    codename="lift_cooldown",
    title="Lift cool-down",
    button="Lift the cool-down",
    danger=False,
    consequences=lambda p: [
        f"end {p.handle}'s quit cool-down now, so they may queue again at once;",
        "keep their quits counted: a repeat within 24 hours still doubles the next cool-down.",
    ],
    perform=_lift,
    form=lambda p, data: RequiredNoteForm(data),
    available=_lift_unavailable,
)
