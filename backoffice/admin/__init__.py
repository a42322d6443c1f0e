"""The moderation panel (docs/moderation.md, "The moderation panel"): the Django admin, with a dashboard for index.

Each module registers one page: players, games, flags, reports and the audit log. Every page is read-only for
everyone (no Save, no add, no delete); changes are the actions, each a confirmation page whose POST calls one
service of ``moderation.services`` and needs its own permission (``moderation.moderators``). The pictures are
server-side SVG (``charts``). Key management and the Hanabot table stay superuser-only (arena/ratings admin).
"""

from django.contrib import admin

import arena.admin  # noqa: F401  (registered before they are wrapped below)
import matchmaking.admin  # noqa: F401
import ratings.admin  # noqa: F401
from arena.models import GameServer
from backoffice.admin import audit, door, economy, flags, games, players, reports, seasons, tournaments
from backoffice.admin.rules_audit import audit_admins
from matchmaking.models import ServerCallback
from ratings.models import HanabotRating

# Tables rating and detection read, edited by superusers: every change audited with before and after (§6).
RULE_TABLES = [HanabotRating, ServerCallback, GameServer]
audit_admins(admin.site, RULE_TABLES)


class HanabotReadable(type(admin.site._registry[HanabotRating])):  # type: ignore[misc]
    """The Hanabot table, readable by moderators (``ratings.view_hanabotrating``, the Moderators group's), edited
    by superusers only: change, add and delete stay the superusers' (issue 27 §4)."""

    def has_module_permission(self, request):  # type: ignore[no-untyped-def]
        return super().has_module_permission(request) or request.user.has_perm("ratings.view_hanabotrating")

    def has_view_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return super().has_view_permission(request, obj) or request.user.has_perm("ratings.view_hanabotrating")


admin.site.unregister(HanabotRating)
admin.site.register(HanabotRating, HanabotReadable)
door.register()  # the superusers' "Unlock" actions, the TOTP pages of a missing device (issue 25)

__all__ = ["RULE_TABLES", "audit", "economy", "flags", "games", "players", "reports", "seasons", "tournaments"]
