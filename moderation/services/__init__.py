"""Moderation's services: every moderator action is one transaction and writes one ``AuditEntry``.

Nothing here is ever called automatically (seed 004: "if there is any possible doubt, a player should be
considered not guilty"); the admin panel's actions and the reports API are the only callers. docs/moderation.md.

Penalties (``moderation.services.penalties``, a package of one module per use case: ``multiple_accounts``,
``bans``, ``resets``, ``verdicts``, ``voids``), each returning the ``AuditEntry`` it wrote; the steps every action
shares (its audit entry, its note, its locks, the retry of a transient abort) are ``moderation.services.action_steps``:

- ``multiple_accounts_confirm(*, moderator: User, primary: Player, accounts: Sequence[Player] | None = None,
  flag: Flag | None = None, report: Report | None = None, note: str = "") -> AuditEntry``
  accounts default to the flag's ring (beneficiary + feeders) or the report's accused (+ reporter never); every
  account but ``primary`` is banned, the primary reset to R0 in every title; the flag confirmed, the report upheld.
- ``games_void(*, moderator: User, games: Sequence[Game], note: str = "") -> AuditEntry``
  games played with a banned account become ``void``; each affected title is rebuilt in a worker, which then
  writes the refunds into ``entry.details["refunds"]`` (``{title: [{player, handle, before, after, delta}]}``).
- ``void_refusal(*, games: Sequence[Game]) -> Conflict | None`` why these games cannot be voided (the rule
  ``games_void`` enforces), for the panel to offer or withhold the action.
- ``player_ban(*, moderator: User, player: Player, note: str, duration: timedelta | None = None) -> AuditEntry``
  a timed ban (``duration``) keeps a ``BanTerm``; ``bans_expired_lift(*, now=None) -> list[AuditEntry]`` (the
  beat) lifts the bans whose term is past, each an audited ``unban`` by the system.
- ``player_unban(*, moderator: User, player: Player, note: str) -> AuditEntry``
- ``player_reset(*, moderator: User, player: Player, titles: Sequence[str] | None = None,
  note: str = "") -> AuditEntry``
- ``flag_dismiss(*, moderator: User, flag: Flag, note: str) -> AuditEntry``
- ``report_dismiss(*, moderator: User, report: Report, note: str) -> AuditEntry``
- ``report_uphold(*, moderator: User, report: Report, note: str = "") -> AuditEntry``

Cool-downs (``moderation.services.cooldowns``):

- ``player_cooldown_lift(*, moderator: User, player: Player, note: str) -> AuditEntry`` ends a running quit cool-down.

Standing (``moderation.services.standing``): ``player_warn(*, moderator, player, note) -> AuditEntry`` (a recorded
warning) and ``player_note_add(*, moderator, player, note) -> AuditEntry`` (a private moderator note).

The queue (``moderation.services.queue``): ``case_close_as_duplicate(*, moderator, obj, of, note="")`` closes a
flag or report as the same case as #``of`` (a related case only: one sharing an account);
``case_reopen(*, moderator, obj, note)`` opens again a case closed by mistake, audited, undoing the closing;
``case_claim(*, moderator, obj)`` / ``case_release(*, moderator, obj)``
take and give back a case for an hour (``CLAIM_FOR``); ``case_claim_on_open(*, moderator, obj)`` takes an open
case nobody holds when a moderator opens one of its action pages (no audit entry: a notice);
``claim_holder(obj)`` says who holds it now.

Related cases (``moderation.services.related``): ``covered_open_cases(*, accounts, exclude=None)`` the open flags
and reports an action on ``accounts`` settles; ``multiple_accounts_confirm`` and ``player_ban`` take them as
``close_cases=`` and close them in their own transaction, as resolved by that action.

Reports (``moderation.services.reports``):

- ``report_create(*, server: GameServer, reporter: str, accused: Sequence[str], reasons: Sequence[str],
  game_id: int | None = None, move: int | None = None, description: str = "") -> Report``

Reads for the panel are in ``moderation.selectors`` (``multiple_accounts_warnings``, ``refunds_of``,
``linked_accounts``).
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
from moderation.services.queue import (
    REOPENABLE,
    case_claim,
    case_claim_on_open,
    case_close_as_duplicate,
    case_release,
    case_reopen,
    claim_holder,
)
from moderation.services.related import case_accounts, cases_close_covered, covered_open_cases
from moderation.services.reports import report_create
from moderation.services.standing import player_note_add, player_warn

__all__ = [
    "REOPENABLE",
    "bans_expired_lift",
    "case_accounts",
    "case_claim",
    "case_claim_on_open",
    "case_close_as_duplicate",
    "case_release",
    "case_reopen",
    "cases_close_covered",
    "claim_holder",
    "covered_open_cases",
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
