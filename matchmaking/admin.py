"""Admin: callback URLs and their secrets for superusers only; tickets, tables and pushes to read.

Pushes are visible to whoever may view them, failures first to find; a failed delivery can be retried by hand
(the same service the workers use).
"""
from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.admin import HandleSearch, ReadOnly, SuperuserOnly
from matchmaking.models import Delivery, DeliveryAttempt, Pool, ServerCallback, Table, Ticket, TicketSeat
from matchmaking.services import deliveries_retry


@admin.register(ServerCallback)
class ServerCallbackAdmin(SuperuserOnly, admin.ModelAdmin):
    """Where a game server's tables are pushed. The secret is generated here and shown to superusers only."""

    list_display = ("server", "url", "enabled")
    fields = ("server", "url", "enabled", "secret")
    readonly_fields = ("secret",)

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.is_superuser


class DeliveryAttemptInline(ReadOnly, admin.TabularInline):
    model = DeliveryAttempt
    fields = ("number", "at", "status_code", "error", "duration_ms")
    readonly_fields = fields
    extra = 0


@admin.register(Delivery)
class DeliveryAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("id", "server", "status", "attempts", "last_error", "created_at", "next_attempt_at",
                    "delivered_at")
    list_filter = ("status", "server")
    list_select_related = ("server",)
    readonly_fields = ("id", "server", "table", "url", "status", "attempts", "created_at", "next_attempt_at",
                       "delivered_at", "last_error")
    inlines = (DeliveryAttemptInline,)
    actions = ("retry_now",)

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return request.user.is_superuser  # the action below; every field stays read-only

    @admin.action(description="Retry the selected failed or pending deliveries now")
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
