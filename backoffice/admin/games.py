"""The Game page: places, rating changes, same-IP marks, the refunds of a void; action void. Searchable by player."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Prefetch, Q, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from arena.api.game_payload import storable_text
from arena.games import GAMES, all_games
from arena.models import Game, Player, Seat, is_player_id
from backoffice.admin import reads
from backoffice.admin.base import PanelAdmin
from backoffice.admin.confirm import Action, NoteForm
from backoffice.admin.explanation import explanation_context
from infra.errors import ArenaError
from moderation import services
from moderation.moderators import perm

# A ring's games fit many times over; a whole title does not belong on one confirmation page.
VOID_AT_ONCE = 500


class TitleFilter(admin.SimpleListFilter):
    """The games' titles from the rules registry: Django's default filter on a plain column asks the database for
    its DISTINCT values on every page load, a scan of every game."""

    title = "game"
    parameter_name = "title"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [(game.title, game.name) for game in all_games()]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        """Only a title the registry knows reaches the query: anything else (a typo, a NUL PostgreSQL refuses)
        lists nothing."""
        if not self.value():
            return queryset
        return queryset.filter(title=self.value()) if self.value() in GAMES else queryset.none()


class BannedPlayerFilter(admin.SimpleListFilter):
    """Games with a player banned now: the only games a void accepts (``void_refusal``), a ring's at a glance."""

    title = "has a banned player"
    parameter_name = "banned"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        banned = Seat.objects.filter(player__status=Player.Status.BANNED).values("game_id")
        if self.value() == "yes":
            return queryset.filter(pk__in=banned)
        if self.value() == "no":
            return queryset.exclude(pk__in=banned)
        return queryset


# Several ids at once ("T-1 T-2, kim"), and a table-id prefix ending in "*" ("ring7-*").
SEARCH_TERMS_MAX = 50
PREFIX_MIN = 2  # a shorter prefix would match most of the table: refused (matches nothing)


def _void_unavailable(game: Game) -> str | None:
    """The service's own rule (``void_refusal``), so the button is offered exactly where the void would pass."""
    refusal = services.void_refusal(games=[game])
    return refusal.message if refusal is not None else None


def _void_consequences(game: Game) -> list[str]:
    handles = list(game.seats.order_by("position").values_list("player__handle", flat=True))
    banned = list(game.seats.filter(player__status=Player.Status.BANNED).values_list("player__handle", flat=True))
    return [
        f"void {game} (players: {', '.join(handles)}; banned: {', '.join(banned)});",
        f"remove it from everyone's rating history and rebuild every {game.title} rating from the remaining "
        "games in a worker, so each victim gets back exactly what this game cost them;",
        "list who got how many points back on this page once the worker is done.",
    ]


def _void(request: HttpRequest, game: Game, form: Any) -> str:
    services.games_void(moderator=request.user, games=[game], note=form.cleaned_data["note"])
    return (
        f"{game} is void. The {game.title} ratings are being rebuilt in a worker; the refunds appear on this "
        "page when it is done."
    )


GAME_ACTIONS = {
    "void": Action(
        codename="void_games",
        title="Void",
        button="Void this game",
        consequences=_void_consequences,
        perform=_void,
        available=_void_unavailable,
    ),
}


@admin.register(Game)
class GameAdmin(PanelAdmin):
    # "Finished at" as ISO minutes (``finished``), not Django's "Dec. 1, 2026, 9:47 p.m.": 40 px narrower, so at
    # 1,400 px, beside the navigation and the filters, every column fits with the players column (a browser test
    # checks each header is whole, tests/browser/moderation/test_case_context.py).
    list_display = ("table_id", "title", "players", "status", "same_ip", "finished", "server")
    list_filter = (TitleFilter, "status", BannedPlayerFilter, "same_ip")
    list_select_related = ("server",)
    search_fields = ("table_id",)
    search_help_text = "Player ids (their games) or table ids, several at once; a table-id prefix ends in * (ring7-*)."
    fields = (
        "title",
        "table_id",
        "server",
        "status",
        "rated",
        "same_ip",
        "warnings",
        "variant",
        "finished_at",
        "accepted_at",
        "recommended_sides",
        "coop_score",
        "rating_seq",
        "details",
    )
    ordering = ("-id",)
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER  # a count per filter choice is a scan of every game at a million
    change_form_template = "admin/backoffice/game_change_form.html"
    panel_actions = GAME_ACTIONS
    actions = ("void_selected",)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Game], search_term: str
    ) -> tuple[QuerySet[Game], bool]:
        """Table ids and player ids, several at once (separated by spaces or commas): each an exact match, which
        the indexes serve at any size (a ``LIKE '%x%'`` over every seat would not). A term ending in ``*`` is a
        table-id prefix (``ring7-*``, at least 2 characters before the star)."""
        terms = [t for t in search_term.replace(",", " ").split() if t][:SEARCH_TERMS_MAX]
        if not terms:
            return queryset, False
        if not all(storable_text(t) for t in terms):  # a NUL or a lone surrogate: no id holds one
            return queryset.none(), False
        match = Q(pk__in=[])
        exact = [t for t in terms if not t.endswith("*")]
        if exact:
            match |= Q(table_id__in=exact)
            players = list(
                Player.objects.filter(handle__in=[t for t in exact if is_player_id(t)]).values_list("pk", flat=True)
            )
            if players:
                match |= Q(pk__in=Seat.objects.filter(player_id__in=players).values("game_id"))
        for term in terms:
            if term.endswith("*") and len(term) > PREFIX_MIN:
                match |= Q(table_id__startswith=term[:-1])
        return queryset.filter(match), False

    @admin.display(description="Finished at", ordering="finished_at")
    def finished(self, game: Game) -> str:
        """UTC (the site's time zone), to the minute: what a moderator compares with a report's time."""
        return f"{game.finished_at:%Y-%m-%d %H:%M}"

    @admin.display(description="Players")
    def players(self, game: Game) -> str:
        """Who sat at the table, best place first (one prefetch for the page, not a query per row)."""
        seats = sorted(game.seats.all(), key=lambda s: (s.place is None, s.place or 0, s.position))
        return ", ".join(s.player.handle + (" (banned)" if s.player.is_banned else "") for s in seats)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        """With the seats and players for the players column. A search holding a NUL lists nothing: Django's
        search form drops such a term, which would list every game instead."""
        queryset = (
            super()
            .get_queryset(request)
            .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player")))
        )
        if request is not None and "\x00" in request.GET.get("q", ""):
            return queryset.none()
        return queryset

    def panel_context(self, request: HttpRequest, obj: Game) -> dict[str, Any]:
        return {**reads.game_page(game=obj), **explanation_context(game=obj)}

    def has_void_games_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(perm("void_games"))

    @admin.action(description="Void the selected games (played with a banned account)", permissions=["void_games"])
    def void_selected(self, request: HttpRequest, queryset: QuerySet[Game]) -> TemplateResponse | None:
        """A ring's games at once (search the banned account, tick them all): a confirmation page first, then
        one ``games_void`` call, one audit entry and one rebuild per title, whatever the number of games."""
        games = list(queryset.order_by("pk")[: VOID_AT_ONCE + 1])
        if len(games) > VOID_AT_ONCE:  # "select all" over a search that matched too much: narrow it first
            self.message_user(
                request, f"At most {VOID_AT_ONCE} games can be voided at once; narrow the list.", messages.ERROR
            )
            return None
        refusal = services.void_refusal(games=games)  # refused before the form is offered, games by table id
        if refusal is not None:
            self.message_user(request, refusal.message, messages.ERROR)
            return None
        if request.POST.get("post") == "yes":
            form = NoteForm(request.POST)
            if form.is_valid():
                try:
                    services.games_void(moderator=request.user, games=games, note=form.cleaned_data["note"])
                except ArenaError as refusal:
                    self.message_user(request, refusal.message, messages.ERROR)
                else:
                    self.message_user(
                        request,
                        f"{len(games)} game(s) void; their titles are being rebuilt in a "
                        "worker (each game's page lists the refunds when it is done).",
                        messages.SUCCESS,
                    )
                return None
        else:
            form = NoteForm()
        banned = dict(
            Player.objects.filter(seats__game__in=games, status=Player.Status.BANNED).values_list(
                "seats__game_id", "handle"
            )
        )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Void the selected games",
            "games": [{"game": g, "banned": banned.get(g.pk)} for g in games],
            "titles": sorted({g.title for g in games}),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/backoffice/void_selected.html", context)
