"""Admin: callback URLs and their secrets for superusers only; tickets, tables and pushes to read.

Pushes are visible to whoever may view them, failures first to find; a failed delivery can be retried by hand
(the same service the workers use). Every field of a delivery is read-only, superusers included: what is pushed
is what the pass formed.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from arena.admin import HandleSearch, ReadOnly, SuperuserOnly
from matchmaking.callbacks import callback_create, callback_drop_previous_secret, callback_rotate_secret
from matchmaking.models import Delivery, DeliveryAttempt, Pool, ServerCallback, Table, Ticket, TicketSeat
from matchmaking.services import deliveries_abandon, deliveries_retry

SECRET_MESSAGE = "Callback secret for {server} (shown only this once, store it now): {secret}"


@admin.register(ServerCallback)
class ServerCallbackAdmin(SuperuserOnly, admin.ModelAdmin):
    """Where a game server's tables are pushed (docs/security.md#pushes-to-game-servers: https, public addresses,
    checked on save). A secret is shown once, in the message after it is issued, as API keys are: never on the
    form, so the one shown is always the one saved (issue 19: the Add page showed a default never stored)."""

    list_display = ("server", "url", "enabled", "secrets")
    fields = ("server", "url", "enabled", "secrets", "previous_secret_expires_at")
    readonly_fields = ("secrets",)
    actions = ("rotate_secrets", "drop_previous_secrets")
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def get_fields(self, request: HttpRequest, obj: ServerCallback | None = None) -> tuple[str, ...]:
        return ("server", "url", "enabled") if obj is None else self.fields

    def get_readonly_fields(self, request: HttpRequest, obj: ServerCallback | None = None) -> tuple[str, ...]:
        return self.readonly_fields if obj is None else ("server", *self.readonly_fields)

    @admin.display(description="secrets")
    def secrets(self, obj: ServerCallback) -> str:
        if not obj.previous_secret:
            return "one secret (shown when issued)"
        until = obj.previous_secret_expires_at
        if until is not None and until <= timezone.now():
            return "one secret (the previous one expired)"
        return "new and previous both signing " + (
            f"until {until:%Y-%m-%d %H:%M} UTC" if until else "until the previous one is dropped"
        )

    def save_model(self, request: HttpRequest, obj: ServerCallback, form: object, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            if not obj.enabled:
                deliveries_abandon(server_id=obj.server_id, reason="callback disabled")
            return
        issued = callback_create(server=obj.server, url=obj.url, enabled=obj.enabled)
        obj.pk, obj.secret = issued.callback.pk, issued.secret
        self.message_user(request, SECRET_MESSAGE.format(server=obj.server, secret=issued.secret), messages.WARNING)

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.is_superuser

    @admin.action(description="Issue a new secret (the previous one keeps signing until dropped)")
    def rotate_secrets(self, request: HttpRequest, queryset: QuerySet[ServerCallback]) -> None:
        for callback in queryset.select_related("server"):
            issued = callback_rotate_secret(callback=callback)
            self.message_user(
                request, SECRET_MESSAGE.format(server=callback.server, secret=issued.secret), messages.WARNING
            )

    @admin.action(description="Drop the previous secret now (pushes carry only the new one)")
    def drop_previous_secrets(self, request: HttpRequest, queryset: QuerySet[ServerCallback]) -> None:
        dropped = sum(callback_drop_previous_secret(callback=callback) for callback in queryset)
        self.message_user(request, f"Dropped {dropped} previous secret(s).", messages.SUCCESS)


class DeliveryAttemptInline(ReadOnly, admin.TabularInline):
    model = DeliveryAttempt
    fields = ("number", "at", "status_code", "error", "duration_ms")
    readonly_fields = fields
    extra = 0


@admin.register(Delivery)
class DeliveryAdmin(ReadOnly, admin.ModelAdmin):
    """Read-only for everyone (no change permission, so no form and no Save); superusers' one write is the
    *Retry now* action, under its own permission."""

    list_display = ("id", "server", "status", "attempts", "last_error", "created_at", "next_attempt_at", "delivered_at")
    list_filter = ("status", "server")
    list_select_related = ("server",)
    fields = (
        "id",
        "server",
        "table",
        "url",
        "tickets",
        "status",
        "attempts",
        "created_at",
        "next_attempt_at",
        "delivered_at",
        "last_error",
    )
    readonly_fields = fields
    inlines = (DeliveryAttemptInline,)
    actions = ("retry_now",)

    def has_retry_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    @admin.action(description="Retry the selected failed or pending deliveries now", permissions=["retry"])
    def retry_now(self, request: HttpRequest, queryset: QuerySet[Delivery]) -> None:
        queued = deliveries_retry(delivery_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(request, f"Queued {queued} delivery(ies).", messages.SUCCESS)


class TicketSeatInline(ReadOnly, admin.TabularInline):
    model = TicketSeat
    fields = ("position", "player", "ip_hash")
    readonly_fields = fields
    extra = 0


@admin.register(Ticket)
class TicketAdmin(HandleSearch, ReadOnly, admin.ModelAdmin):
    list_display = ("id", "player", "pool", "status", "server", "created_at", "closed_at")
    list_filter = ("status", "pool__title")
    search_fields = ("player__handle", "request_id")  # shows the box; HandleSearch answers it
    handle_search = "player__handle"
    exact_search = ("request_id",)
    exclude = ("fingerprint",)
    inlines = (TicketSeatInline,)
    list_select_related = ("player", "pool", "server")


@admin.register(Table)
class TableAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("id", "title", "rated", "players", "warnings", "formed_at")
    list_filter = ("title", "rated")


@admin.register(Pool)
class PoolAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("title", "variant_key", "rated", "last_pass_at")
