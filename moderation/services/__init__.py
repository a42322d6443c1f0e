"""Moderation's services: every moderator action is one transaction and writes one ``AuditEntry``.

Nothing here is ever called automatically (seed 004: "if there is any possible doubt, a player should be
considered not guilty"); the admin panel's actions and the reports API are the only callers. docs/moderation.md.

Penalties (``moderation.services.penalties``), each returning the ``AuditEntry`` it wrote:

- ``confirm_multiple_accounts(*, moderator: User, primary: Player, accounts: Sequence[Player] | None = None,
  flag: Flag | None = None, report: Report | None = None, note: str = "") -> AuditEntry``
  accounts default to the flag's ring (beneficiary + feeders) or the report's accused (+ reporter never); every
  account but ``primary`` is banned, the primary reset to R0 in every title; the flag confirmed, the report upheld.
- ``void_games(*, moderator: User, games: Sequence[Game], note: str = "") -> AuditEntry``
  games played with a banned account become ``void``; each affected title is rebuilt in a worker, which then
  writes the refunds into ``entry.details["refunds"]`` (``{title: [{player, handle, before, after, delta}]}``).
- ``void_refusal(*, games: Sequence[Game]) -> Conflict | None`` why these games cannot be voided (the rule
  ``void_games`` enforces), for the panel to offer or withhold the action.
- ``ban(*, moderator: User, player: Player, note: str, duration: timedelta | None = None) -> AuditEntry``
  a timed ban (``duration``) keeps a ``BanTerm``; ``lift_expired_bans(*, now=None) -> list[AuditEntry]`` (the
  beat) lifts the bans whose term is past, each an audited ``unban`` by the system.
- ``unban(*, moderator: User, player: Player, note: str) -> AuditEntry``
- ``reset(*, moderator: User, player: Player, titles: Sequence[str] | None = None, note: str = "") -> AuditEntry``
- ``dismiss_flag(*, moderator: User, flag: Flag, note: str) -> AuditEntry``
- ``dismiss_report(*, moderator: User, report: Report, note: str) -> AuditEntry``
- ``uphold_report(*, moderator: User, report: Report, note: str = "") -> AuditEntry``

Cool-downs (``moderation.services.cooldowns``):

- ``lift_cooldown(*, moderator: User, player: Player, note: str) -> AuditEntry`` ends a running quit cool-down.

Standing (``moderation.services.standing``): ``warn(*, moderator, player, note) -> AuditEntry`` (a recorded
warning) and ``add_note(*, moderator, player, note) -> AuditEntry`` (a private moderator note).

The queue (``moderation.services.queue``): ``close_as_duplicate(*, moderator, obj, of, note="")`` closes a flag
or report as the same case as #``of``; ``claim(*, moderator, obj)`` / ``release(*, moderator, obj)`` take and give
back a case for an hour (``CLAIM_FOR``); ``holder(obj)`` says who holds it now.

Reports (``moderation.services.reports``):

- ``report_create(*, server: GameServer, reporter: str, accused: Sequence[str], reasons: Sequence[str],
  game_id: int | None = None, move: int | None = None, description: str = "") -> Report``

Reads for the panel are in ``moderation.selectors`` (``confirm_warnings``, ``refunds_of``, ``linked_accounts``).
"""
from moderation.services.cooldowns import player_cooldown_lift
from moderation.services.penalties import (
    bans_expired_lift,
    flag_dismiss,
    games_void,
    multiple_accounts_confirm,
    player_ban,
    player_reset,
    player_unban,
    report_dismiss,
    report_uphold,
    void_refusal,
)
from moderation.services.queue import case_claim, case_close_as_duplicate, case_release, claim_holder
from moderation.services.reports import report_create
from moderation.services.standing import player_note_add, player_warn

__all__ = [
    "bans_expired_lift",
    "case_claim",
    "case_close_as_duplicate",
    "case_release",
    "claim_holder",
    "flag_dismiss",
    "games_void",
    "multiple_accounts_confirm",
    "player_ban",
    "player_cooldown_lift",
    "player_note_add",
    "player_reset",
    "player_unban",
    "player_warn",
    "report_create",
    "report_dismiss",
    "report_uphold",
    "void_refusal",
]
