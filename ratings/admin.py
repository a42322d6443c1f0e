"""Ratings in the admin: the Hanabot table is tunable by admins only; ratings themselves are never hand-edited."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from arena.admin import SuperuserOnly
from ratings.models import HanabotRating


@admin.register(HanabotRating)
class HanabotRatingAdmin(SuperuserOnly, admin.ModelAdmin):
    list_display = ("variant_class", "team_size", "score", "elo")
    list_editable = ("elo",)
    list_filter = ("variant_class", "team_size")
    ordering = ("variant_class", "team_size", "score")

    def get_readonly_fields(self, request: HttpRequest, obj: HanabotRating | None = None) -> tuple[str, ...]:
        return ("variant_class", "team_size", "score") if obj else ()

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
