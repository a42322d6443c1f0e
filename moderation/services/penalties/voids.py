"""Voiding games played with a banned account, and the rebuild that refunds their victims (docs/moderation.md,
"Penalties": void games; "Reading a void"). The void is the moderator's transaction; the rebuild runs after its
commit in a worker (``void_rebuilds``, bound by ``moderation.tasks``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from arena.game_rows import games_void_mark
from arena.models import Game, Player, Seat
from infra import handoffs
from infra.errors import Conflict, InvalidInput
from moderation.models import AuditEntry
from moderation.services.action_steps import audit_write, retried
from ratings.models import RatingChange
from ratings.rebuild import title_rebuild

Action = AuditEntry.Action


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
    with_banned = set(
        Seat.objects.filter(game_id__in=ids, player__status=Player.Status.BANNED).values_list("game_id", flat=True)
    )
    innocent = [g for g in games if g.pk not in with_banned]
    if innocent:
        return Conflict(
            "no_banned_player",
            f"Only games played with a banned account can be voided (ban the account first): {_games_named(innocent)}.",
            {"games": "Ban the account first."},
        )
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
        for change in (
            RatingChange.objects.filter(game_id__in=ids, kind=RatingChange.Kind.GAME)
            .select_related("player")
            .order_by("game_id", "seq")
        ):
            game_changes.setdefault(str(change.game_id), []).append(
                {
                    "player": change.player_id,
                    "handle": change.player.handle,
                    "before": change.before,
                    "after": change.after,
                    "delta": change.delta,
                }
            )
        games_void_mark(game_ids=ids)
        players = list(Player.objects.filter(seats__game_id__in=ids).distinct())
        entry = audit_write(
            moderator=moderator,
            action=Action.VOID_GAMES,
            note=note,
            games=locked,
            players=players,
            details={"titles": titles, "pending_titles": titles, "refunds": {}, "game_changes": game_changes},
        )
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
        refunds = [
            {
                "player": pk,
                "handle": handles[pk],
                "before": move.before,
                "after": move.after,
                "delta": round(move.delta, 6),
                # By ledger source; a part that rounds to nothing (float noise of the replay) is left out.
                "sources": {source: round(part, 6) for source, part in move.sources.items() if round(part, 6)},
            }
            for pk, move in moves.items()
        ]
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
    entries = (
        AuditEntry.objects.filter(action=Action.VOID_GAMES, created_at__lte=cutoff)
        .exclude(details__has_key="rebuilt_at")
        .order_by("pk")
        .values_list("pk", "details")
    )
    return [(pk, title) for pk, details in entries for title in details.get("pending_titles", [])]
