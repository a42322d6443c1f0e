"""Moderator penalties, one module per use case (docs/moderation.md, "Penalties"): ``multiple_accounts`` (one
person, several accounts), ``bans`` (ban, unban, a timed ban's end), ``resets``, ``verdicts`` (dismiss, uphold)
and ``voids`` (void games, the rebuild's refunds). Each action is one transaction that writes one audit entry
(``moderation.services.action_steps``). Callers import from here; the names below are the whole interface.
"""

from moderation.services.action_steps import moderator_name, retried
from moderation.services.penalties.bans import (
    ban_term_next_end,
    ban_terms_due,
    bans_expired_lift,
    player_ban,
    player_unban,
)
from moderation.services.penalties.multiple_accounts import multiple_accounts_confirm
from moderation.services.penalties.resets import player_reset
from moderation.services.penalties.verdicts import flag_dismiss, report_dismiss, report_uphold
from moderation.services.penalties.voids import (
    games_void,
    void_rebuild_run,
    void_rebuilds,
    void_rebuilds_overdue,
    void_refusal,
)

__all__ = [
    "ban_term_next_end",
    "ban_terms_due",
    "bans_expired_lift",
    "flag_dismiss",
    "games_void",
    "moderator_name",
    "multiple_accounts_confirm",
    "player_ban",
    "player_reset",
    "player_unban",
    "report_dismiss",
    "report_uphold",
    "retried",
    "void_rebuild_run",
    "void_rebuilds",
    "void_rebuilds_overdue",
    "void_refusal",
]
