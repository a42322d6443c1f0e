"""The Player page: ratings and their plots, recent games, linked accounts, flags, reports; ban, unban, reset."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse

from arena.models import Player
from backoffice.admin import reads
from backoffice.admin.base import PanelAdmin
from backoffice.admin.confirm import Action, RequiredNoteForm, related_field_add, related_picked
from backoffice.admin.explanation import LIFT_COOLDOWN, cooldown_context
from backoffice.admin.presets import WarningForm
from backoffice.admin.seasons import player_seasons
from moderation import services
from ratings.config import elo_config
from ratings.models import Rating

# The ban form's choices: hours, or 0 for "until lifted" (a moderator lifts it, or a confirmation made it final).
# Nothing is preselected (issue 27 §1): a moderator who does not choose is told to, never banned for good by default.
BAN_DURATIONS = [
    ("", "Choose how long…"),
    (24, "1 day"),
    (72, "3 days"),
    (168, "7 days"),
    (720, "30 days"),
    (2160, "90 days"),
    (0, "Until lifted"),
]


class BanForm(RequiredNoteForm):
    """A ban's note and how long it lasts: a timed ban is lifted by the beat when its time is up, audited. The
    length must be chosen (docs/moderation.md, "Mistakes the panel refuses")."""

    duration = forms.TypedChoiceField(
        label="Duration",
        choices=BAN_DURATIONS,
        coerce=int,
        required=True,
        error_messages={"required": "Choose how long the ban lasts."},
        help_text="A timed ban ends by itself (an audited unban by the system).",
    )
    field_order = ("duration", "note")

    def __init__(self, *args: Any, player: Player, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        related_field_add(self, services.covered_open_cases(accounts={player.pk}))

    def duration_delta(self) -> timedelta | None:
        hours = self.cleaned_data["duration"]
        return timedelta(hours=hours) if hours else None


def rating_preview(player: Player, *, reset: bool) -> list[dict[str, Any]]:
    """Each title's Elo now and after the action: a reset puts every title at R0 (which raises a rating that was
    below R0), a ban leaves ratings as they are (the player only leaves the boards)."""
    initial = elo_config().initial
    return [
        {
            "title": r.title,
            "before": round(r.elo, 2),
            "after": round(initial if reset else r.elo, 2),
            "delta": round((initial - r.elo) if reset else 0.0, 2),
            "games": r.games,
        }
        for r in Rating.objects.filter(player=player).order_by("title")
    ]


def ring_preview(candidates: list[Player]) -> list[dict[str, Any]]:
    """The confirm page's preview: for each account that may be chosen as primary, its titles reset to R0 (the
    others are banned, their ratings left as they are)."""
    return [{"account": p.handle, "rows": rating_preview(p, reset=True)} for p in candidates]


def _titles(player: Player) -> list[str]:
    return sorted(Rating.objects.filter(player=player).values_list("title", flat=True))


def _ban(request: HttpRequest, player: Player, form: Any) -> str:
    entry = services.player_ban(
        moderator=request.user,
        player=player,
        note=form.cleaned_data["note"],
        duration=form.duration_delta(),
        close_cases=related_picked(form),
    )
    until = entry.details.get("until")
    # Never a handle first: the admin capitalises a message's first letter, and ids are case-sensitive.
    return f"Banned {player.handle} " + (f"until {until[:16].replace('T', ' ')} UTC." if until else "until lifted.")


def _warn(request: HttpRequest, player: Player, form: Any) -> str:
    services.player_warn(moderator=request.user, player=player, note=form.cleaned_data["note"])
    return f"Warning to {player.handle} recorded."


def _note(request: HttpRequest, player: Player, form: Any) -> str:
    services.player_note_add(moderator=request.user, player=player, note=form.cleaned_data["note"])
    return f"Note on {player.handle} kept."


def _unban(request: HttpRequest, player: Player, form: Any) -> str:
    services.player_unban(moderator=request.user, player=player, note=form.cleaned_data["note"])
    return f"Lifted the ban of {player.handle}."


def _reset(request: HttpRequest, player: Player, form: Any) -> str:
    entry = services.player_reset(moderator=request.user, player=player, note=form.cleaned_data["note"])
    titles = ", ".join(r["title"] for r in entry.details.get("resets", [])) or "no title (no ratings)"
    return f"Reset the rating of {player.handle} to R0 in {titles}."


PLAYER_ACTIONS = {
    "ban": Action(
        codename="ban_player",
        title="Ban",
        button="Ban this account",
        consequences=lambda p: [
            f"ban {p.handle} everywhere: off the leaderboards, refused by matchmaking, waiting tickets cancelled;",
            "record their new games but rate them for nobody;",
            "leave their past games as they are (void them from a game's page to refund their opponents).",
        ],
        perform=_ban,
        form=lambda p, data: BanForm(data, player=p),
        available=lambda p: "This account is already banned." if p.is_banned else None,
        preview=lambda p: rating_preview(p, reset=False),
    ),
    "unban": Action(
        codename="unban_player",
        title="Unban",
        button="Lift the ban",
        danger=False,
        consequences=lambda p: [
            f"lift {p.handle}'s ban: their games from now on are rated again, and they return "
            "to the leaderboards where their ratings qualify."
        ],
        perform=_unban,
        form=lambda p, data: RequiredNoteForm(data),
        available=lambda p: None if p.is_banned else "This account is not banned.",
    ),
    "reset": Action(
        codename="reset_rating",
        title="Reset ratings",
        button="Reset to R0",
        consequences=lambda p: [
            f"reset {p.handle}'s Elo to R0 in every game they have a rating in "
            f"({', '.join(_titles(p)) or 'none yet'}), written as a reset in their history;",
            "keep their game counts (so K does not start over). The policy resets to R0 in every game, so a "
            "rating below R0 goes up (see the table).",
        ],
        perform=_reset,
        preview=lambda p: rating_preview(p, reset=True),
    ),
    "warn": Action(
        codename="warn_player",
        title="Warn",
        button="Record the warning",
        danger=False,
        consequences=lambda p: [
            f"record a warning to {p.handle}, the first step short of a ban: shown on their "
            "page and in the audit log (say what they were warned about below)."
        ],
        perform=_warn,
        form=lambda p, data: WarningForm(data),
    ),
    "note": Action(
        codename="note_player",
        title="Add a note",
        button="Keep the note",
        danger=False,
        consequences=lambda p: [
            f"keep a private moderator note about {p.handle}: listed on their page and in the "
            "audit log, never shown to the player."
        ],
        perform=_note,
        form=lambda p, data: RequiredNoteForm(data),
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
    change_form_template = "admin/backoffice/player_change_form.html"
    panel_actions = PLAYER_ACTIONS

    def panel_context(self, request: HttpRequest, obj: Player) -> dict[str, Any]:
        """The page's reads, and the link to all the player's games (on the page ``PanelAdmin`` already loaded,
        not a second lookup of the player)."""
        games_url = reverse("admin:arena_game_changelist") + "?" + urlencode({"q": obj.handle})
        page = reads.player_case_file(player=obj)
        # Both reads fill ``standing`` (ban term, warnings, notes; reputation and cool-down): one dict, no overlap.
        standing = {**page["standing"], **cooldown_context(player=obj)["standing"]}
        return {**page, "games_url": games_url, "standing": standing, "seasons": player_seasons(player=obj)}
