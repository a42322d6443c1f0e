"""Moderator actions: each is one transaction that writes one audit entry (docs/moderation.md, "Penalties").

A ban goes through the core's ``player_status_ban``, which announces ``PlayerStatusChanged`` after the commit: the
leaderboards drop the player and matchmaking cancels their waiting tickets itself when it listens, so this module
needs no call into matchmaking (and works the same with or without it installed).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError, transaction
from django.utils import timezone

from arena.game_rows import games_void_mark
from arena.models import Game, Player, Seat
from arena.players import player_status_ban, player_status_unban
from infra import handoffs
from infra.db import is_transient, retry_transient
from infra.errors import Conflict, InvalidInput
from moderation.models import AuditEntry, BanTerm, Flag, Report
from moderation.services.related import Case, cases_close_covered
from ratings.config import elo_config
from ratings.models import RatingChange
from ratings.rebuild import title_rebuild
from ratings.resets import rating_reset

Action = AuditEntry.Action
F = TypeVar("F", bound=Callable[..., Any])


def retried(service: F) -> F:
    """Run a moderator action that locks games or players again when the database aborts it for a transient reason
    (a deadlock victim while workers rate those rows), as recording does (``infra.db.retry_transient``): the
    moderator's valid request must not end in a 500 (issue 27 §1; docs/moderation.md, "Under rating load"). The
    action is one transaction, so a retry starts from scratch and re-reads every row under its locks."""

    @functools.wraps(service)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return retry_transient(lambda: service(*args, **kwargs))
        except DatabaseError as error:
            if not is_transient(error):
                raise
            # Every attempt was a transient abort: nothing was written (each attempt was one transaction rolled
            # back), so the moderator is told to try again, a 409 with its code, never a 500.
            raise Conflict("database_busy", "The database was busy with the rating workers and this action was "
                           "not done; nothing changed. Try again in a moment.") from error

    return run  # type: ignore[return-value]


def moderator_name(moderator: AbstractBaseUser | None) -> str:
    """The username the audit entry keeps as it is now (``AuditEntry.moderator_name``); empty for the system."""
    return moderator.get_username() if moderator is not None and moderator.is_authenticated else ""


def _audit(*, moderator: AbstractBaseUser | None, action: str, note: str = "", players: Sequence[Player] = (),
           games: Sequence[Game] = (), flags: Sequence[Flag] = (), reports: Sequence[Report] = (),
           details: dict[str, Any] | None = None) -> AuditEntry:
    entry: AuditEntry = AuditEntry.objects.create(
        moderator=moderator, moderator_name=moderator_name(moderator), action=action, note=note,
        details=details or {})
    if players:
        entry.players.add(*players)
    if games:
        entry.games.add(*games)
    if flags:
        entry.flags.add(*flags)
    if reports:
        entry.reports.add(*reports)
    return entry


def _need_note(note: str) -> str:
    note = (note or "").strip()
    if not note:
        raise InvalidInput("note_required", "Say why in a note: the audit log keeps it.", {"note": "Required."})
    return note


def _resolve(obj: Flag | Report, status: str, moderator: AbstractBaseUser | None, note: str) -> None:
    """Close the case; whoever held its claim holds nothing any more."""
    obj.status, obj.resolved_by, obj.resolved_at, obj.note = status, moderator, timezone.now(), note
    obj.claimed_by, obj.claimed_until = None, None
    obj.save(update_fields=["status", "resolved_by", "resolved_at", "note", "claimed_by", "claimed_until"])


def _lock_open(model: type[Flag] | type[Report], obj: Flag | Report) -> Flag | Report:
    locked: Flag | Report = model.objects.select_for_update().get(pk=obj.pk)
    if locked.status != model.Status.OPEN:
        raise Conflict("already_resolved", f"This {model.__name__.lower()} is already {locked.status}.")
    return locked


def _lock_statuses(players: Sequence[Player]) -> None:
    """Lock the players' rows and read their statuses afresh: two moderators on one stale page must not both act.

    One statement, rows locked in id order (the order every locker of several players uses, so two actions on
    overlapping accounts queue behind each other rather than deadlock); each ``Player`` is updated in place.
    """
    fresh = dict(Player.objects.select_for_update().filter(pk__in=[p.pk for p in players]).order_by("pk")
                 .values_list("pk", "status"))
    for player in players:
        player.status = fresh[player.pk]


# ---------------------------------------------------------------------------------------------------------------
# Multiple accounts
# ---------------------------------------------------------------------------------------------------------------

@retried
def multiple_accounts_confirm(*, moderator: AbstractBaseUser | None, primary: Player,
                              accounts: Sequence[Player] | None = None, flag: Flag | None = None,
                              report: Report | None = None, note: str = "",
                              close_cases: Sequence[Case] = ()) -> AuditEntry:
    """One person, several accounts: ban every account but ``primary``, reset the primary to R0 everywhere.

    ``accounts`` is the whole set the moderator judged to be one person (``primary`` among them); by default the
    flag's ring (beneficiary and feeders) or the report's accused. The primary's reset is a ``reset`` history
    entry in every title it has a rating in; its game counts are kept (docs/ratings.md). The secondaries' games stay
    as they are: voiding them, which refunds their victims, is a separate and deliberate action. ``close_cases``:
    the other open flags and reports these accounts settle, closed in the same transaction (``related``).
    """
    with transaction.atomic():
        locked_flag = _lock_open(Flag, flag) if flag is not None else None
        locked_report = _lock_open(Report, report) if report is not None else None
        if accounts is None:  # read under the flag's lock: detection rewrites an open flag's feeders under it
            accounts = []
            if locked_flag is not None:
                accounts = [locked_flag.beneficiary, *Player.objects.filter(fed_flags__flag=locked_flag)]
            elif locked_report is not None:
                accounts = list(locked_report.accused.all())
        group = {p.pk: p for p in [*accounts, primary]}
        if primary.pk not in {p.pk for p in accounts}:
            raise InvalidInput("primary_not_in_accounts", "The primary must be one of the accounts confirmed.",
                               {"primary": "Pick one of the accounts."})
        secondaries = [p for pk, p in sorted(group.items()) if pk != primary.pk]
        if not secondaries:
            raise InvalidInput("no_secondary_accounts", "Confirming multiple accounts needs at least two accounts.",
                               {"accounts": "Name the secondary accounts."})
        # Who is banned already is decided on the locked rows, never on the moderator's page: a ban committed
        # meanwhile (another moderator, another flag of the ring) is neither repeated nor claimed by this entry.
        _lock_statuses([primary, *secondaries])
        banned = []
        for player in secondaries:
            if not player.is_banned:
                player_status_ban(player=player)
                banned.append(player.handle)
        # A secondary account is banned for good: a timed ban it was serving does not lift it any more.
        BanTerm.objects.filter(player__in=secondaries).delete()
        resets = rating_reset(player=primary)
        if locked_flag is not None:
            _resolve(locked_flag, Flag.Status.CONFIRMED, moderator, note)
        if locked_report is not None:
            _resolve(locked_report, Report.Status.UPHELD, moderator, note)
        more_flags, more_reports = cases_close_covered(
            cases=close_cases, accounts=group, moderator=moderator, note=note,
            by=f"the confirmation of {', '.join(sorted(p.handle for p in group.values()))} as one person")
        details = {"primary": primary.handle, "secondaries": [p.handle for p in secondaries], "banned": banned,
                   "resets": [{"title": r.title, "before": r.before, "after": elo_config().initial} for r in resets],
                   **_closed_with(more_flags, more_reports)}
        return _audit(moderator=moderator, action=Action.CONFIRM_MULTIPLE_ACCOUNTS, note=note,
                      players=[primary, *secondaries], flags=[*([locked_flag] if locked_flag else []), *more_flags],
                      reports=[*([locked_report] if locked_report else []), *more_reports], details=details)


def _closed_with(flags: Sequence[Flag], reports: Sequence[Report]) -> dict[str, Any]:
    """The audit entry's record of the related cases an action closed (empty when none were ticked)."""
    if not flags and not reports:
        return {}
    return {"closed_with": {"flags": [f.pk for f in flags], "reports": [r.pk for r in reports]}}


# ---------------------------------------------------------------------------------------------------------------
# Ban, unban, reset
# ---------------------------------------------------------------------------------------------------------------

@retried
def player_ban(*, moderator: AbstractBaseUser | None, player: Player, note: str,
        duration: timedelta | None = None, close_cases: Sequence[Case] = ()) -> AuditEntry:
    """Ban one account: off the boards, refused by matchmaking, its new games rated for nobody.

    With ``duration`` the ban is timed: a ``BanTerm`` says when it ends, and the beat lifts it then
    (``lift_expired_bans``, an audited unban). Without, it lasts until a moderator lifts it. ``close_cases``: the
    open flags and reports the ban settles (all their accounts banned now), closed in the same transaction."""
    note = _need_note(note)
    if duration is not None and duration <= timedelta(0):
        raise InvalidInput("invalid_duration", "A timed ban lasts a positive time.", {"duration": "Must be > 0."})
    with transaction.atomic():
        _lock_statuses([player])
        if player.is_banned:
            raise Conflict("already_banned", f"{player.handle} is already banned.")
        player_status_ban(player=player)
        until = timezone.now() + duration if duration is not None else None
        flags, reports = cases_close_covered(cases=close_cases, accounts={player.pk}, moderator=moderator,
                                             note=note, by=f"the ban of {player.handle}")
        entry = _audit(moderator=moderator, action=Action.BAN, note=note, players=[player], flags=flags,
                       reports=reports, details={"until": until.isoformat() if until else None,
                                                 **_closed_with(flags, reports)})
        if until is not None:
            BanTerm.objects.update_or_create(player=player, defaults={"until": until, "entry": entry})
            handoffs.hand_off(ban_terms_due, duration.total_seconds() if duration else 0.0)
        return entry


# A timed ban's end, handed to moderation's tasks after the commit: with a beat its sweep lifts the ban; embedded
# (no beat) a timer in this process runs the same sweep when the term ends (``moderation.tasks.ban_term_timer``).
ban_terms_due = handoffs.HandOff("moderation: lift a timed ban when its term ends")


@retried
def player_unban(*, moderator: AbstractBaseUser | None, player: Player, note: str) -> AuditEntry:
    """Lift a ban (with a note: the audit log says why); the player's games from now on are rated again."""
    note = _need_note(note)
    with transaction.atomic():
        _lock_statuses([player])
        if not player.is_banned:
            raise Conflict("not_banned", f"{player.handle} is not banned.")
        player_status_unban(player=player)
        BanTerm.objects.filter(player=player).delete()
        return _audit(moderator=moderator, action=Action.UNBAN, note=note, players=[player])


def bans_expired_lift(*, now: datetime | None = None) -> list[AuditEntry]:
    """The beat's sweep: every timed ban whose term is past is lifted, each as an audited ``unban`` by the system
    (no moderator), in its own transaction. Safe to run twice or at once: terms are locked and skipped if taken,
    and a term whose player is no longer banned (lifted by hand meanwhile) is simply removed."""
    now = now or timezone.now()
    lifted = []
    for player_id in list(BanTerm.objects.filter(until__lte=now).order_by("until").values_list("player_id",
                                                                                                  flat=True)):
        with transaction.atomic():
            term = (BanTerm.objects.select_for_update(skip_locked=True).filter(player_id=player_id, until__lte=now)
                    .select_related("player").first())
            if term is None:
                continue
            player = term.player
            _lock_statuses([player])
            until = term.until
            term.delete()
            if not player.is_banned:
                continue
            player_status_unban(player=player)
            lifted.append(_audit(moderator=None, action=Action.UNBAN, players=[player],
                                 note=f"The timed ban ended ({until:%Y-%m-%d %H:%M} UTC).",
                                 details={"ban_ended": until.isoformat()}))
    return lifted


@retried
def player_reset(*, moderator: AbstractBaseUser | None, player: Player, titles: Sequence[str] | None = None,
          note: str = "") -> AuditEntry:
    """Reset a player's Elo to R0 in every title (or ``titles``) as ``reset`` history entries."""
    with transaction.atomic():
        resets = rating_reset(player=player, titles=titles)
        details = {"resets": [{"title": r.title, "before": r.before, "after": elo_config().initial} for r in resets]}
        return _audit(moderator=moderator, action=Action.RESET, note=note, players=[player], details=details)


# ---------------------------------------------------------------------------------------------------------------
# Flags and reports
# ---------------------------------------------------------------------------------------------------------------

def flag_dismiss(*, moderator: AbstractBaseUser | None, flag: Flag, note: str) -> AuditEntry:
    """Not guilty: the flag is closed and stays closed until detection finds a suspect game it did not cite."""
    note = _need_note(note)
    with transaction.atomic():
        locked = _lock_open(Flag, flag)
        _resolve(locked, Flag.Status.DISMISSED, moderator, note)
        players = [locked.beneficiary, *Player.objects.filter(fed_flags__flag=locked)]
        return _audit(moderator=moderator, action=Action.DISMISS_FLAG, note=note, players=players, flags=[locked])


def report_dismiss(*, moderator: AbstractBaseUser | None, report: Report, note: str) -> AuditEntry:
    """The report is not upheld; it counts against the reporter's track record."""
    note = _need_note(note)
    with transaction.atomic():
        locked = _lock_open(Report, report)
        _resolve(locked, Report.Status.DISMISSED, moderator, note)
        return _audit(moderator=moderator, action=Action.DISMISS_REPORT, note=note,
                      players=list(locked.accused.all()), reports=[locked], games=[locked.game] if locked.game else [])


def report_uphold(*, moderator: AbstractBaseUser | None, report: Report, note: str = "") -> AuditEntry:
    """The moderator agrees with the reporter (a penalty, if any, is its own action); raises their track record."""
    with transaction.atomic():
        locked = _lock_open(Report, report)
        _resolve(locked, Report.Status.UPHELD, moderator, note)
        return _audit(moderator=moderator, action=Action.UPHOLD_REPORT, note=note,
                      players=list(locked.accused.all()), reports=[locked], games=[locked.game] if locked.game else [])


# ---------------------------------------------------------------------------------------------------------------
# Void and refund
# ---------------------------------------------------------------------------------------------------------------

def _games_named(games: Sequence[Game]) -> str:
    """Games as moderators know them: by the game server's table id, never the database id."""
    names = [g.table_id for g in sorted(games, key=lambda g: g.pk)]
    return f"game {names[0]}" if len(names) == 1 else "games " + ", ".join(names)


def void_refusal(*, games: Sequence[Game]) -> Conflict | None:
    """Why these games cannot be voided, or None: the one statement of the rule (docs/moderation.md, "Penalties").

    A void game is not voided twice, and only a game played with a banned account is voided at all: the refund
    is for the victims of a confirmed abuser, never a way to undo an ordinary loss. ``games_void`` raises what
    this returns, under its row locks; the panel asks it first to offer or withhold the Void button, so the two
    never disagree about which games qualify. One query at most, whatever the number of games.
    """
    ids = sorted(g.pk for g in games)
    already = [g for g in games if g.status == Game.Status.VOID]
    if already:
        return Conflict("already_void", f"Already void: {_games_named(already)}.", {"games": "Already void."})
    with_banned = set(Seat.objects.filter(game_id__in=ids, player__status=Player.Status.BANNED)
                      .values_list("game_id", flat=True))
    innocent = [g for g in games if g.pk not in with_banned]
    if innocent:
        return Conflict("no_banned_player", "Only games played with a banned account can be voided (ban the "
                        f"account first): {_games_named(innocent)}.", {"games": "Ban the account first."})
    return None


# A void's titles, rebuilt after its commit by a worker each (moderation/tasks.py): (audit entry id, titles).
void_rebuilds = handoffs.HandOff("moderation: rebuild the voided titles")


@retried
def games_void(*, moderator: AbstractBaseUser | None, games: Sequence[Game], note: str = "") -> AuditEntry:
    """Void games played with a banned account; every affected title is rebuilt in a worker, never here.

    The rebuild replays the title without them, so each victim gets back exactly what the abuse cost them (and
    every rating the voided games touched downstream is recomputed, not estimated). The void hands
    ``void_rebuilds`` over after its commit; moderation's task module (``moderation.tasks.rebuild_voided``) queues one
    rebuild per title, and the worker writes who got how much into ``details["refunds"]`` of the returned entry.
    """
    ids = sorted({g.pk for g in games})
    if not ids:
        raise InvalidInput("no_games", "Pick the games to void.", {"games": "Required."})
    with transaction.atomic():
        locked = list(Game.objects.select_for_update().filter(pk__in=ids).order_by("pk"))
        if len(locked) != len(ids):
            raise InvalidInput("games_not_found", "Some of these games do not exist.", {"games": "Unknown ids."})
        refusal = void_refusal(games=locked)
        if refusal is not None:
            raise refusal
        titles = sorted({g.title for g in locked if g.status == Game.Status.RATED})
        # Each game's own rating changes as they stood, before the rebuild removes them: its page still shows
        # what the game did (``details["game_changes"]``, by game id).
        game_changes: dict[str, list[dict[str, Any]]] = {}
        for change in (RatingChange.objects.filter(game_id__in=ids, kind=RatingChange.Kind.GAME)
                       .select_related("player").order_by("game_id", "seq")):
            game_changes.setdefault(str(change.game_id), []).append(
                {"player": change.player_id, "handle": change.player.handle, "before": change.before,
                 "after": change.after, "delta": change.delta})
        games_void_mark(game_ids=ids)
        players = list(Player.objects.filter(seats__game_id__in=ids).distinct())
        entry = _audit(moderator=moderator, action=Action.VOID_GAMES, note=note, games=locked, players=players,
                       details={"titles": titles, "pending_titles": titles, "refunds": {},
                                "game_changes": game_changes})
        handoffs.hand_off(void_rebuilds, entry.pk, tuple(titles))
    return entry


def void_rebuild_run(*, entry_id: int, title: str) -> list[dict[str, Any]]:
    """Rebuild ``title`` after a void and write every player's Elo before and after into the audit entry.

    Ratings' ``title_rebuild`` locks the title and says whose Elo moved; called inside this transaction, its lock
    and the entry's are held to the one commit, so the refunds written are exactly what the rebuild changed and
    a rebuild is never committed without them. Runs in a worker (``moderation.tasks.void_rebuild``).
    """
    with transaction.atomic():
        entry = AuditEntry.objects.select_for_update().get(pk=entry_id)
        if title not in entry.details.get("pending_titles", []):
            # Run again (a task redelivered after its commit): the refunds written then stand; a second rebuild
            # would change nothing and overwrite them with an empty list.
            refunds: list[dict[str, Any]] = entry.details.get("refunds", {}).get(title, [])
            return refunds
        moves = title_rebuild(title=title)
        handles = dict(Player.objects.filter(pk__in=list(moves)).values_list("pk", "handle"))
        refunds = [{"player": pk, "handle": handles[pk], "before": move.before, "after": move.after,
                    "delta": round(move.delta, 6),
                    # By ledger source; a part that rounds to nothing (float noise of the replay) is left out.
                    "sources": {source: round(part, 6) for source, part in move.sources.items() if round(part, 6)}}
                   for pk, move in moves.items()]
        refunds.sort(key=lambda r: (-r["delta"], r["handle"]))
        entry.details.setdefault("refunds", {})[title] = refunds
        entry.details["pending_titles"] = [t for t in entry.details.get("pending_titles", []) if t != title]
        if not entry.details["pending_titles"]:
            entry.details["rebuilt_at"] = timezone.now().isoformat()
        entry.save(update_fields=["details"])
    return refunds


def void_rebuilds_overdue(*, older_than: float, now: datetime | None = None) -> list[tuple[int, str]]:
    """The (audit entry, title) rebuilds a void still owes, for voids older than ``older_than`` seconds.

    The entry's ``pending_titles`` is the database's record of the work (written with the void, emptied title by
    title by ``void_rebuild_run``), so a rebuild whose message was lost with a killed worker is found here and
    queued again by the sweep (``moderation.tasks.sweep_void_rebuilds``); running it twice refunds nothing twice.
    """
    cutoff = (now or timezone.now()) - timedelta(seconds=older_than)
    entries = (AuditEntry.objects.filter(action=Action.VOID_GAMES, created_at__lte=cutoff)
               .exclude(details__has_key="rebuilt_at").order_by("pk").values_list("pk", "details"))
    return [(pk, title) for pk, details in entries for title in details.get("pending_titles", [])]
