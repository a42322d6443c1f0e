"""The steps every moderator action shares: its audit entry, its note, the locks it takes on a case or on players,
and the retry of a transient abort (docs/moderation.md, "Penalties" and "Under rating load").

The actions themselves live by use case: ``penalties`` (confirm multiple accounts, bans, resets, verdicts, voids),
``queue`` (duplicates, reopening, claims), ``standing`` (warnings, notes) and ``cooldowns``. Each is one transaction
that writes one audit entry with ``audit_write``; keeping the steps here keeps that promise in one place.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError
from django.utils import timezone

from arena.models import Game, Player
from infra.db import is_transient, retry_transient
from infra.errors import Conflict, InvalidInput
from moderation.models import AuditEntry, Flag, Report

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
            raise Conflict(
                "database_busy",
                "The database was busy with the rating workers and this action was "
                "not done; nothing changed. Try again in a moment.",
            ) from error

    return run  # type: ignore[return-value]


def moderator_name(moderator: AbstractBaseUser | None) -> str:
    """The username the audit entry keeps as it is now (``AuditEntry.moderator_name``); empty for the system."""
    return moderator.get_username() if moderator is not None and moderator.is_authenticated else ""


def audit_write(
    *,
    moderator: AbstractBaseUser | None,
    action: str,
    note: str = "",
    players: Sequence[Player] = (),
    games: Sequence[Game] = (),
    flags: Sequence[Flag] = (),
    reports: Sequence[Report] = (),
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    """The action's one audit entry, written in the action's own transaction (the caller's ``atomic``)."""
    entry: AuditEntry = AuditEntry.objects.create(
        moderator=moderator, moderator_name=moderator_name(moderator), action=action, note=note, details=details or {}
    )
    if players:
        entry.players.add(*players)
    if games:
        entry.games.add(*games)
    if flags:
        entry.flags.add(*flags)
    if reports:
        entry.reports.add(*reports)
    return entry


def note_required(note: str) -> str:
    """The note stripped; a 400 ``note_required`` when there is none (the actions that must say why)."""
    note = (note or "").strip()
    if not note:
        raise InvalidInput("note_required", "Say why in a note: the audit log keeps it.", {"note": "Required."})
    return note


def case_resolve(obj: Flag | Report, status: str, moderator: AbstractBaseUser | None, note: str) -> None:
    """Close the case; whoever held its claim holds nothing any more."""
    obj.status, obj.resolved_by, obj.resolved_at, obj.note = status, moderator, timezone.now(), note
    obj.claimed_by, obj.claimed_until = None, None
    obj.save(update_fields=["status", "resolved_by", "resolved_at", "note", "claimed_by", "claimed_until"])


def case_lock_open(model: type[Flag] | type[Report], obj: Flag | Report) -> Flag | Report:
    """The case's row, locked, read afresh; 409 ``already_resolved`` when someone closed it meanwhile."""
    locked: Flag | Report = model.objects.select_for_update().get(pk=obj.pk)
    if locked.status != model.Status.OPEN:
        raise Conflict("already_resolved", f"This {model.__name__.lower()} is already {locked.status}.")
    return locked


def statuses_lock(players: Sequence[Player]) -> None:
    """Lock the players' rows and read their statuses afresh: two moderators on one stale page must not both act.

    One statement, rows locked in id order (the order every locker of several players uses, so two actions on
    overlapping accounts queue behind each other rather than deadlock); each ``Player`` is updated in place.
    """
    fresh = dict(
        Player.objects.select_for_update()
        .filter(pk__in=[p.pk for p in players])
        .order_by("pk")
        .values_list("pk", "status")
    )
    for player in players:
        player.status = fresh[player.pk]
