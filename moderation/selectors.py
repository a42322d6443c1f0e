"""Reads for the moderation panel: linked accounts, what a confirmation should warn about, refunds, queue lag.

Never raw values: links carry kinds, counts, dates and how crowded the shared hash was (docs/moderation.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Q

from arena.models import GameServer, Player
from infra.errors import NotFound
from moderation import crowds, rules
from moderation.detection import detection_lag
from moderation.models import AuditEntry, Link, Report

__all__ = [
    "detection_lag",
    "linked_accounts",
    "multiple_accounts_warnings",
    "refunds_of",
    "report_get_for_server",
    "void_of_game",
]


def report_get_for_server(*, server: GameServer, report_id: int) -> Report:
    """A game server reads back only the reports it filed; another server's report is as unknown as a missing one."""
    report = Report.objects.filter(pk=report_id, server=server).select_related("reporter").first()
    if report is None:
        raise NotFound("report_not_found", f"No report {report_id} filed by this game server.")
    return report


def _link_row(link: Link, other: Player) -> dict[str, Any]:
    return {
        "player": other.pk,
        "handle": other.handle,
        "status": other.status,
        "kind": link.kind,
        "keys": link.keys,
        "first_seen": link.first_seen,
        "last_seen": link.last_seen,
        "crowd": link.crowd,
        "crowded": rules.is_crowded(link.crowd),
        "weight": round(rules.link_weight(link.kind, link.crowd), 3),
    }


def linked_accounts(*, player: Player) -> list[dict[str, Any]]:
    """Every account linked to ``player`` (one row per account and kind), most recent link first."""
    links = Link.objects.filter(Q(player_a=player) | Q(player_b=player)).select_related("player_a", "player_b")
    rows = [_link_row(link, link.player_b if link.player_a_id == player.pk else link.player_a) for link in links]
    rows.sort(key=lambda row: (row["last_seen"], row["handle"]), reverse=True)
    return rows


def _handles(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def multiple_accounts_warnings(*, accounts: Sequence[Player]) -> list[str]:
    """What the confirm action must say before it bans, one line per reason, never one per pair.

    - Each widely-shared hash (more than ``rules.CROWDED_ACCOUNTS`` accounts *outside* ``accounts`` within 30 days:
      a school, a café, a carrier's NAT) that is all that ties some of the accounts together: one line naming it
      and them. A device only the ring uses has 0 strangers, so a ring brings no such warning (``crowds``).
    - Each account that shares no address or device with the others.

    Plain sentences with handles (the template escapes them).
    """
    ids = sorted({p.pk for p in accounts})
    handles = {p.pk: p.handle for p in accounts}
    hashes = crowds.shared_hashes(accounts=ids)
    warnings = []
    for shared in hashes:
        if not shared.widely_shared:
            continue
        # Only pairs with no better tie: another hash of theirs that is not widely shared makes this one moot.
        weak = sorted(
            {
                p
                for i, a in enumerate(shared.accounts)
                for b in shared.accounts[i + 1 :]
                if not any(h.ties(a, b) and not h.widely_shared for h in hashes)
                for p in (a, b)
            }
        )
        if not weak:
            continue
        what = "an address" if shared.kind == Link.Kind.IP else "a device"
        warnings.append(
            f"{_handles([handles[p] for p in weak])} are tied only through {what} "
            f"{shared.strangers} other accounts used within 30 days (a school, a café?): weak evidence "
            "on its own."
        )
    linked = {
        p
        for link in Link.objects.filter(player_a_id__in=ids, player_b_id__in=ids)
        for p in (link.player_a_id, link.player_b_id)
    }
    for pk in ids:
        if len(ids) > 1 and pk not in linked:
            warnings.append(f"{handles[pk]} shares no address or device with the other accounts.")
    return warnings


def earlier_confirmations(*, accounts: Sequence[Player]) -> list[str]:
    """ "Already confirmed on case #N": each earlier confirmation of multiple accounts that covered any of
    ``accounts``, named by its case, moderator and date, with the accounts it shares with these (issue 27 §1;
    docs/moderation.md, "Mistakes the panel refuses"). A ring judged once is not judged again unawares."""
    ids = {p.pk: p.handle for p in accounts}
    entries = (
        AuditEntry.objects.filter(action=AuditEntry.Action.CONFIRM_MULTIPLE_ACCOUNTS, players__in=list(ids))
        .distinct()
        .prefetch_related("players", "flags", "reports")
        .order_by("created_at")
    )
    said = []
    for entry in entries:
        cases = [f"flag #{f.pk}" for f in entry.flags.all()] + [f"report #{r.pk}" for r in entry.reports.all()]
        shared = sorted(ids[p.pk] for p in entry.players.all() if p.pk in ids)
        where = " and ".join(cases) or "a player's page"
        said.append(
            f"Already confirmed on {where} by {entry.moderator_name or 'the system'} on "
            f"{entry.created_at:%Y-%m-%d}: {_handles(shared)}."
        )
    return said


def refunds_of(*, entry: AuditEntry) -> dict[str, Any]:
    """A void's outcome for the panel: per title, who got how much back; ``pending`` while the worker rebuilds."""
    details = entry.details or {}
    return {
        "pending": list(details.get("pending_titles", [])),
        "refunds": details.get("refunds", {}),
        "rebuilt_at": details.get("rebuilt_at"),
    }


def void_of_game(*, game_id: int, title: str) -> dict[str, Any] | None:
    """The public face of a game's void (the rating explanation of a void game): when, which games went with it,
    and the refunds the rebuild of ``title`` caused (``pending`` until the worker has written them). No note and
    no moderator: those are the panel's. Two queries."""
    entry = (
        AuditEntry.objects.filter(action=AuditEntry.Action.VOID_GAMES, games__pk=game_id)
        .order_by("-created_at", "-id")
        .first()
    )
    if entry is None:
        return None
    details = entry.details or {}
    refunds = [
        {
            "player": r["handle"],
            "before": r["before"],
            "after": r["after"],
            "delta": r["delta"],
            "sources": r.get("sources", {}),
        }
        for r in details.get("refunds", {}).get(title, [])
    ]
    return {
        "voided_at": entry.created_at,
        "games": sorted(entry.games.values_list("pk", flat=True)),
        "pending": title in details.get("pending_titles", []),
        "refunds": refunds,
    }
