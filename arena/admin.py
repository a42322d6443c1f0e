"""Admin for the core domain: game servers. Key management is for admins (superusers) only; keys are shown once."""
from __future__ import annotations

from typing import ClassVar

from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from arena.models import GameServer, is_player_id
from arena.servers import game_server_create, game_server_revoke, game_server_rotate_key


class ReadOnly:
    """Mixin: a page to read, never to edit, for everyone, superusers included (records change only through
    services: a pass, a push, a moderator's audited action)."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class HandleSearch:
    """Mixin: the list's search box takes a player id, exact or its start (case-sensitive, as ids are), served
    by the handle's unique index, unlike the default ``icontains`` (``LIKE '%x%'``), a scan at a million rows.
    Anything that cannot be a player id matches nothing (and never reaches the database: PostgreSQL refuses a NUL
    in a query), unless one of ``exact_search`` (other ids, e.g. a ticket's ``request_id``) equals it."""

    # The player-handle path the search looks up (``handle``, ``beneficiary__handle``, ``player__handle``).
    handle_search: ClassVar[str | None] = None
    exact_search: ClassVar[tuple[str, ...]] = ()

    def get_search_results(self, request: HttpRequest, queryset: QuerySet, search_term: str
                           ) -> tuple[QuerySet, bool]:
        if self.handle_search is None:
            return super().get_search_results(request, queryset, search_term)  # type: ignore[misc]
        term = search_term.strip()
        if not term:
            return queryset, False
        if "\x00" in term:
            return queryset.none(), False
        match = Q(**{f"{self.handle_search}__startswith": term}) if is_player_id(term) else Q(pk__in=[])
        for field in self.exact_search:
            match |= Q(**{field: term})
        return queryset.filter(match), False


class SuperuserOnly:
    """Mixin: only superusers see or touch these objects (moderators get no key management)."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_view_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.is_superuser

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.is_superuser

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(GameServer)
class GameServerAdmin(SuperuserOnly, admin.ModelAdmin):
    list_display = ("name", "key_prefix", "created_at", "revoked_at")
    readonly_fields = ("key_prefix", "created_at", "revoked_at")
    fields = ("name", "key_prefix", "created_at", "revoked_at")
    actions = ("revoke_keys", "rotate_keys")

    def get_readonly_fields(self, request: HttpRequest, obj: GameServer | None = None) -> tuple[str, ...]:
        return self.readonly_fields if obj is None else ("name", *self.readonly_fields)

    def save_model(self, request: HttpRequest, obj: GameServer, form: object, change: bool) -> None:
        if change:
            return
        issued = game_server_create(name=obj.name)
        obj.pk = issued.server.pk
        obj.key_prefix = issued.server.key_prefix
        self.message_user(
            request, f"API key for {obj.name} (shown only this once, store it now): {issued.key}", messages.WARNING
        )

    @admin.action(description="Revoke the API keys of the selected game servers")
    def revoke_keys(self, request: HttpRequest, queryset: QuerySet[GameServer]) -> None:
        active = list(queryset.filter(revoked_at__isnull=True))
        for server in active:
            game_server_revoke(server=server)
        self.message_user(request, f"Revoked {len(active)} key(s).", messages.SUCCESS)

    @admin.action(description="Issue new API keys to the selected game servers (old keys stop working)")
    def rotate_keys(self, request: HttpRequest, queryset: QuerySet[GameServer]) -> None:
        for server in queryset:
            issued = game_server_rotate_key(server=server)
            self.message_user(request, f"New API key for {server.name} (shown only this once): {issued.key}",
                              messages.WARNING)


# Players and games are the moderation panel's pages (moderation/admin/players.py, games.py): with their ratings,
# links and actions, which sit above the core.
