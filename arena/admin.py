"""Admin for the core domain: game servers. Key management is for admins (superusers) only; keys are shown once."""

from __future__ import annotations

from typing import ClassVar

from django import forms
from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from arena.models import DEFAULT_SCOPES, SCOPES, GameServer, is_player_id
from arena.servers import (
    ServerRevokedError,
    game_server_create,
    game_server_key_rotate,
    game_server_revoke,
    game_server_scopes_set,
    scopes_text,
)


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

    def get_search_results(self, request: HttpRequest, queryset: QuerySet, search_term: str) -> tuple[QuerySet, bool]:
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


class ScopesField(forms.MultipleChoiceField):
    """The stored space-separated scopes as checkboxes (docs/security.md#game-server-keys-and-scopes)."""

    widget = forms.CheckboxSelectMultiple

    def __init__(self, **kwargs: object) -> None:
        kwargs.pop("max_length", None)
        kwargs.pop("empty_value", None)
        super().__init__(choices=[(scope, scope) for scope in SCOPES], **kwargs)  # type: ignore[arg-type]

    def prepare_value(self, value: object) -> object:
        return value.split() if isinstance(value, str) else value

    def clean(self, value: object) -> str:  # type: ignore[override]
        try:
            return scopes_text(super().clean(value))
        except ValueError as unknown:
            raise forms.ValidationError(str(unknown)) from None


class GameServerForm(forms.ModelForm):
    scopes = ScopesField(
        required=False,
        initial=list(DEFAULT_SCOPES),
        help_text="What the key may do; a call outside them is 403 missing_scope.",
    )

    class Meta:
        model = GameServer
        fields = ("name", "scopes")


@admin.register(GameServer)
class GameServerAdmin(SuperuserOnly, admin.ModelAdmin):
    form = GameServerForm
    list_display = ("name", "key_prefix", "scopes", "created_at", "revoked_at")
    readonly_fields = ("key_prefix", "created_at", "revoked_at")
    fields = ("name", "scopes", "key_prefix", "created_at", "revoked_at")
    actions = ("revoke_keys", "rotate_keys")

    def get_readonly_fields(self, request: HttpRequest, obj: GameServer | None = None) -> tuple[str, ...]:
        if obj is None:
            return self.readonly_fields
        if obj.revoked_at is not None:
            return ("name", "scopes", *self.readonly_fields)  # revoked for good: nothing left to edit
        return ("name", *self.readonly_fields)

    def save_model(self, request: HttpRequest, obj: GameServer, form: forms.ModelForm, change: bool) -> None:
        if change:
            # Only the scopes are editable on a server's page; they hold from its next request.
            game_server_scopes_set(server=obj, scopes=obj.scopes.split())
            return
        issued = game_server_create(name=obj.name, scopes=obj.scopes.split())
        obj.pk = issued.server.pk
        obj.key_prefix = issued.server.key_prefix
        self.message_user(
            request, f"API key for {obj.name} (shown only this once, store it now): {issued.key}", messages.WARNING
        )

    @admin.action(description="Revoke the API keys of the selected game servers")
    def revoke_keys(self, request: HttpRequest, queryset: QuerySet[GameServer]) -> None:
        """For good, and with their waiting tickets cancelled and pending pushes abandoned (game_server_revoke)."""
        revoked = sum(game_server_revoke(server=server) for server in queryset.filter(revoked_at__isnull=True))
        self.message_user(request, f"Revoked {revoked} key(s).", messages.SUCCESS)

    @admin.action(description="Issue new API keys to the selected game servers (old keys stop working)")
    def rotate_keys(self, request: HttpRequest, queryset: QuerySet[GameServer]) -> None:
        for server in queryset:
            try:
                issued = game_server_key_rotate(server=server)
            except ServerRevokedError as refused:  # a revoked server stays revoked
                self.message_user(request, str(refused), messages.ERROR)
                continue
            self.message_user(
                request, f"New API key for {server.name} (shown only this once): {issued.key}", messages.WARNING
            )


# Players and games are the moderation panel's pages (backoffice/admin/players.py, games.py): with their ratings,
# links and actions, which sit above the core.
