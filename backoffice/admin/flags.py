"""The Flag page: the evidence, the picture of the ring; actions confirm (choose the primary) and dismiss."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from arena.models import Game, Player, Seat
from backoffice.admin import reads
from backoffice.admin.base import PanelAdmin
from backoffice.admin.cases import OpenFirstStatusFilter, flag_accounts, flag_context, queue_actions
from backoffice.admin.confirm import Action, PrimaryForm, RequiredNoteForm, Ring, related_picked, with_policy
from backoffice.admin.games import VOID_AT_ONCE, TitleFilter
from backoffice.admin.players import ring_preview
from moderation import services
from moderation.models import Flag
from moderation.selectors import earlier_confirmations, multiple_accounts_warnings


@dataclass(frozen=True)
class RingGames:
    """A confirmed flag's void: the rated games its banned accounts played (read once per request)."""

    obj: Flag
    games: list[Game]


def ring_games(flag: Flag) -> list[Game]:
    """Every rated game a banned account of the flag sat at (the ring's games, and its games against strangers,
    whose victims are owed a refund too), oldest first; at most ``VOID_AT_ONCE`` + 1 (to tell "too many")."""
    banned = Player.objects.filter(pk__in=flag_accounts(flag), status=Player.Status.BANNED)
    return list(
        Game.objects.filter(
            status=Game.Status.RATED, pk__in=Seat.objects.filter(player__in=banned).values("game_id")
        ).order_by("finished_at", "pk")[: VOID_AT_ONCE + 1]
    )


def _void_unavailable(flag: Flag) -> str | None:
    if flag.status != Flag.Status.CONFIRMED:
        return "Only a confirmed flag's ring can be voided (confirm it first)."
    games = ring_games(flag)
    if not games:
        return "No rated game of this ring's banned accounts is left to void."
    if len(games) > VOID_AT_ONCE:
        return f"More than {VOID_AT_ONCE} games: void them from the games list, a part at a time."
    return None


def _void_consequences(subject: RingGames) -> list[str]:
    names = [g.table_id for g in subject.games]
    shown = ", ".join(names[:40]) + (f" and {len(names) - 40} more" if len(names) > 40 else "")
    titles = sorted({g.title for g in subject.games})
    return [
        f"void the {len(names)} rated game{'s' if len(names) != 1 else ''} this ring's banned accounts "
        f"played: {shown};",
        f"rebuild every rating of {', '.join(titles)} from the remaining games in a worker, so each victim gets "
        "back exactly what these games cost them (one summary on the audit entry, linked from each game).",
    ]


def _void(request: HttpRequest, subject: RingGames, form: Any) -> str:
    services.games_void(moderator=request.user, games=subject.games, note=form.cleaned_data["note"])
    return (
        f"Voided {len(subject.games)} game(s) of flag #{subject.obj.pk}'s ring; their titles are being rebuilt "
        "in a worker."
    )


def _open_only(flag: Flag) -> str | None:
    return None if flag.status == Flag.Status.OPEN else f"This flag is already {flag.get_status_display().lower()}."


def _ring(flag: Flag) -> Ring:
    return Ring(obj=flag, candidates=reads.flag_candidates(flag=flag))


def _confirm_consequences(ring: Ring) -> list[str]:
    handles = ", ".join(p.handle for p in ring.candidates)
    return [
        f"treat {handles} as one person, whose primary account you choose below;",
        "ban every other account at once, everywhere: off the leaderboards, refused by matchmaking, waiting "
        "tickets cancelled, new games rated for nobody;",
        "reset the primary account's Elo to R0 in every game (a reset in its history; game counts kept);",
        "mark this flag confirmed. Their past games stay rated until you void them: this flag's page then offers "
        '"Void this ring\'s rated games".',
    ]


def _confirm_warnings(ring: Ring) -> list[str]:
    """The confirm page says so before it bans (``selectors.multiple_accounts_warnings``): pairs tied only through a
    widely-shared address or device (a school, a café), accounts not linked at all."""
    return [
        *earlier_confirmations(accounts=ring.candidates),
        *with_policy(multiple_accounts_warnings(accounts=ring.candidates)),
    ]


def _confirm(request: HttpRequest, ring: Ring, form: Any) -> str:
    primary = form.primary_player()
    entry = services.multiple_accounts_confirm(
        moderator=request.user,
        primary=primary,
        flag=ring.obj,
        note=form.cleaned_data["note"],
        close_cases=related_picked(form),
    )
    banned = ", ".join(entry.details.get("secondaries", [])) or "nobody"
    return f"Confirmed: {banned} banned, {primary.handle} reset to R0."


def _dismiss(request: HttpRequest, flag: Flag, form: Any) -> str:
    services.flag_dismiss(moderator=request.user, flag=flag, note=form.cleaned_data["note"])
    return f"Flag #{flag.pk} dismissed."


FLAG_ACTIONS = {
    "confirm": Action(
        codename="confirm_multiple_accounts",
        title="Confirm multiple accounts",
        button="Confirm and ban",
        consequences=_confirm_consequences,
        warnings=_confirm_warnings,
        perform=_confirm,
        available=_open_only,
        prepare=_ring,
        preview=lambda ring: ring_preview(ring.candidates),
        form=lambda ring, data: PrimaryForm(data, candidates=ring.candidates, case=ring.obj),
    ),
    "dismiss": Action(
        codename="dismiss",
        title="Dismiss",
        button="Dismiss this flag",
        danger=False,
        consequences=lambda flag: [
            "close this flag as not guilty: it stays closed until detection finds a suspect game it did not cite."
        ],
        perform=_dismiss,
        form=lambda flag, data: RequiredNoteForm(data),
        available=_open_only,
    ),
    "void": Action(
        codename="void_games",
        title="Void this ring's rated games",
        button="Void these games",
        consequences=_void_consequences,
        perform=_void,
        available=_void_unavailable,
        prepare=lambda flag: RingGames(obj=flag, games=ring_games(flag)),
    ),
    **queue_actions("flag", "no verdict on anyone, the case is judged on the other flag.", _open_only),
}


@admin.register(Flag)
class FlagAdmin(PanelAdmin):
    list_display = (
        "id",
        "beneficiary",
        "title",
        "status",
        "score",
        "feeder_count",
        "held_by",
        "created_at",
        "updated_at",
    )
    list_filter = (OpenFirstStatusFilter, TitleFilter)
    list_select_related = ("beneficiary", "claimed_by")
    search_fields = ("beneficiary__handle",)  # shows the search box; PanelAdmin's handle search answers it
    handle_search = "beneficiary__handle"
    search_help_text = "The beneficiary's player id (exact, or the start of one)."
    fields = ("beneficiary", "title", "status", "score", "created_at", "updated_at", "resolved_at", "resolved_by")
    ordering = ("-score", "id")
    change_form_template = "admin/backoffice/flag_change_form.html"
    panel_actions = FLAG_ACTIONS

    def get_queryset(self, request: HttpRequest) -> QuerySet[Flag]:
        return super().get_queryset(request).annotate(n_feeders=Count("feeders"))

    @admin.display(description="Feeders", ordering="n_feeders")
    def feeder_count(self, flag: Flag) -> int:
        return flag.n_feeders

    def panel_subtitle(self, obj: Flag) -> str:
        return f"Flag #{obj.pk}: {obj.beneficiary.handle} in {obj.title} ({obj.get_status_display().lower()})"

    def panel_context(self, request: HttpRequest, obj: Flag) -> dict[str, Any]:
        return {**reads.flag_page(flag=obj), "case": flag_context(flag=obj)}

    @admin.display(description="Held by")
    def held_by(self, flag: Flag) -> str:
        current = services.claim_holder(flag)
        return current.get_username() if current else ""
