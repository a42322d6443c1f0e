"""Admin for the core domain: game servers. Key management is for admins (superusers) only; keys are shown once."""
from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.models import GameServer
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
