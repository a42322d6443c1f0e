"""Reads for the moderation panel: linked accounts, what a confirmation should warn about, refunds, queue lag.

Never raw values: links carry kinds, counts, dates and how crowded the shared hash was (docs/moderation.md).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Q

from arena.errors import NotFound
from arena.models import GameServer, Player
from moderation import rules
from moderation.detection import detection_lag
from moderation.models import AuditEntry, Link, Report

__all__ = ["confirm_warnings", "detection_lag", "linked_accounts", "refunds_of", "report_get_for_server"]


def report_get_for_server(*, server: GameServer, report_id: int) -> Report:
    """A game server reads back only the reports it filed; another server's report is as unknown as a missing one."""
    report = Report.objects.filter(pk=report_id, server=server).select_related("reporter").first()
    if report is None:
        raise NotFound("report_not_found", f"No report {report_id} filed by this game server.")
    return report


def _link_row(link: Link, other: Player) -> dict[str, Any]:
    return {"player": other.pk, "handle": other.handle, "status": other.status, "kind": link.kind,
            "keys": link.keys, "first_seen": link.first_seen, "last_seen": link.last_seen, "crowd": link.crowd,
            "crowded": rules.is_crowded(link.crowd), "weight": round(rules.link_weight(link.kind, link.crowd), 3)}


def linked_accounts(*, player: Player) -> list[dict[str, Any]]:
    """Every account linked to ``player`` (one row per account and kind), most recent link first."""
    links = Link.objects.filter(Q(player_a=player) | Q(player_b=player)).select_related("player_a", "player_b")
    rows = [_link_row(link, link.player_b if link.player_a_id == player.pk else link.player_a) for link in links]
    rows.sort(key=lambda row: (row["last_seen"], row["handle"]), reverse=True)
    return rows


def confirm_warnings(*, accounts: Sequence[Player]) -> list[str]:
    """What the confirm action must say before it bans: pairs among ``accounts`` tied only by a crowded hash, or
    not linked at all. Plain sentences with handles (the template escapes them)."""
    ids = sorted({p.pk for p in accounts})
    handles = {p.pk: p.handle for p in accounts}
    links: dict[tuple[int, int], list[Link]] = {}
    for link in Link.objects.filter(player_a_id__in=ids, player_b_id__in=ids):
        links.setdefault((link.player_a_id, link.player_b_id), []).append(link)
    warnings = []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            pair = links.get((a, b), [])
            if not pair:
                continue
            if all(rules.is_crowded(link.crowd) for link in pair):
                crowd = max(link.crowd for link in pair)
                warnings.append(f"{handles[a]} and {handles[b]} are linked only through an address or device "
                                f"{crowd} accounts share (a school, a café?): weak evidence on its own.")
    linked = {p for pair in links for p in pair}
    for pk in ids:
        if len(ids) > 1 and pk not in linked:
            warnings.append(f"{handles[pk]} shares no address or device with the other accounts.")
    return warnings


def refunds_of(*, entry: AuditEntry) -> dict[str, Any]:
    """A void's outcome for the panel: per title, who got how much back; ``pending`` while the worker rebuilds."""
    details = entry.details or {}
    return {"pending": list(details.get("pending_titles", [])), "refunds": details.get("refunds", {}),
            "rebuilt_at": details.get("rebuilt_at")}
