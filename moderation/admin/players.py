"""The Player page: ratings and their plots, recent games, linked accounts, flags, reports; ban, unban, reset."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse

from arena.models import Player
from moderation import services
from moderation.admin import reads
from moderation.admin.base import PanelAdmin
from moderation.admin.confirm import Action, RequiredNoteForm
from moderation.admin.explanation import LIFT_COOLDOWN, cooldown_context
from ratings.models import Rating


def _titles(player: Player) -> list[str]:
    return sorted(Rating.objects.filter(player=player).values_list("title", flat=True))


def _ban(request: HttpRequest, player: Player, form: Any) -> str:
    services.ban(moderator=request.user, player=player, note=form.cleaned_data["note"])
    return f"{player.handle} is banned."


def _unban(request: HttpRequest, player: Player, form: Any) -> str:
    services.unban(moderator=request.user, player=player, note=form.cleaned_data["note"])
    return f"{player.handle} is no longer banned."


def _reset(request: HttpRequest, player: Player, form: Any) -> str:
    entry = services.reset(moderator=request.user, player=player, note=form.cleaned_data["note"])
    titles = ", ".join(r["title"] for r in entry.details.get("resets", [])) or "no title (no ratings)"
    return f"{player.handle}'s rating was reset to R0 in {titles}."


PLAYER_ACTIONS = {
    "ban": Action(
        codename="ban_player", title="Ban", button="Ban this account",
        consequences=lambda p: [
            f"ban {p.handle} everywhere: off the leaderboards, refused by matchmaking, waiting tickets cancelled;",
            "record their new games but rate them for nobody;",
            "leave their past games as they are (void them from a game's page to refund their opponents).",
        ],
        perform=_ban, form=lambda p, data: RequiredNoteForm(data),
        available=lambda p: "This account is already banned." if p.is_banned else None,
    ),
    "unban": Action(
        codename="unban_player", title="Unban", button="Lift the ban", danger=False,
        consequences=lambda p: [f"lift {p.handle}'s ban: their games from now on are rated again, and they return "
                                "to the leaderboards where their ratings qualify."],
        perform=_unban, form=lambda p, data: RequiredNoteForm(data),
        available=lambda p: None if p.is_banned else "This account is not banned.",
    ),
    "reset": Action(
        codename="reset_rating", title="Reset ratings", button="Reset to R0",
        consequences=lambda p: [
            f"reset {p.handle}'s Elo to R0 in every game they have a rating in "
            f"({', '.join(_titles(p)) or 'none yet'}), written as a reset in their history;",
            "keep their game counts (so K does not start over).",
        ],
        perform=_reset,
    ),
    "lift_cooldown": LIFT_COOLDOWN,
}


@admin.register(Player)
class PlayerAdmin(PanelAdmin):
    list_display = ("handle", "status", "created_at")
    list_filter = ("status",)
    search_fields = ("handle",)  # shows the search box; PanelAdmin's handle search answers it
    handle_search = "handle"
    search_help_text = "A player id (exact, or the start of one)."
    fields = ("handle", "status", "created_at")
    ordering = ("handle",)
    show_full_result_count = False
    change_form_template = "admin/moderation/player_change_form.html"
    panel_actions = PLAYER_ACTIONS

    def panel_context(self, request: HttpRequest, obj: Player) -> dict[str, Any]:
        """The page's reads, and the link to all the player's games (on the page ``PanelAdmin`` already loaded,
        not a second lookup of the player)."""
        games_url = reverse("admin:arena_game_changelist") + "?" + urlencode({"q": obj.handle})
        return {**reads.player_page(player=obj), "games_url": games_url, **cooldown_context(player=obj)}
