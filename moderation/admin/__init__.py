"""The moderation panel (docs/moderation.md, "The moderation panel"): the Django admin, with a dashboard for index.

Each module registers one page: players, games, flags, reports and the audit log. Every page is read-only for
everyone (no Save, no add, no delete); changes are the actions, each a confirmation page whose POST calls one
service of ``moderation.services`` and needs its own permission (``moderation.moderators``). The pictures are
server-side SVG (``charts``). Key management and the Hanabot table stay superuser-only (arena/ratings admin).
"""
from moderation.admin import audit, flags, games, players, reports

__all__ = ["audit", "flags", "games", "players", "reports"]
