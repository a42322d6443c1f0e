"""A void's summary as a moderator reads it: who got points back and who gave some, with totals, and why each
loser lost (issue 27 §3; docs/moderation.md, "Reading a void").

A void rebuilds the title without the voided games. The victims of the ring get back what it cost them; but the
ring's accounts also come out lower, so an honest player who beat them in *other* games gained less for it, and
their rating falls a little. The shift read "78 victims refunded +204.65" while 120 honest players lost 210.81 in
the same rebuild: both sides are shown, each with its total, and each loser with the reason.

A read of moderation's own records (the audit entry's refunds) and the games', so it lives beside
``moderation/selectors.py``; the panel (``backoffice/admin/reads.py``) only renders it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from arena.models import Game, Player, Seat
from moderation.models import AuditEntry
from moderation.selectors import refunds_of

# A change smaller than a hundredth of a point shows as 0.00: not a refund a moderator needs to read.
REFUND_SHOWN = 0.005


def _met(*, title: str, losers: set[int], ring: set[int], voided: set[int]) -> dict[int, list[str]]:
    """For each loser, the ring accounts (voided games' players the rebuild lowered) they met in games that stay
    rated: the rebuild lowered those opponents, so those results are worth less now. Two queries per title."""
    if not losers or not ring:
        return {}
    ring_seats = list(
        Seat.objects.filter(player_id__in=ring, game__title=title, game__status=Game.Status.RATED)
        .exclude(game_id__in=voided)
        .values_list("game_id", "player__handle", "player_id")
    )
    by_game: dict[int, set[tuple[int, str]]] = defaultdict(set)
    for game_id, handle, pid in ring_seats:
        by_game[game_id].add((pid, handle))
    met: dict[int, set[str]] = defaultdict(set)
    for pid, game_id in Seat.objects.filter(game_id__in=list(by_game), player_id__in=losers).values_list(
        "player_id", "game_id"
    ):
        met[pid].update(handle for other, handle in by_game[game_id] if other != pid)
    return {pid: sorted(handles) for pid, handles in met.items()}


def _why(met: list[str], *, sat_at_voided: bool) -> str:
    if sat_at_voided:
        return "sat at the voided games: what they gained there no longer counts"
    if met:
        shown = ", ".join(met[:3]) + (f" and {len(met) - 3} more" if len(met) > 3 else "")
        return (
            f"played {shown} in games that stay rated: without the voided games their ratings are lower, so "
            "those results are worth less"
        )
    return "a knock-on effect: played opponents whose ratings the rebuild moved"


def void_summary(entry: AuditEntry) -> dict[str, Any]:
    """Per title: the victims refunded (positive change) and the players who gave points back (negative), each
    side with its count and total, largest change first, no zero rows; accounts banned now (the abusers) are left
    out of both. ``pending`` while the worker still rebuilds a title."""
    outcome = refunds_of(entry=entry)
    ids = {row.get("player") for rows in outcome["refunds"].values() for row in rows}
    banned = set(Player.objects.filter(pk__in=ids, status=Player.Status.BANNED).values_list("pk", flat=True))
    voided = set(entry.games.values_list("pk", flat=True))
    ring = set(Seat.objects.filter(game_id__in=voided).values_list("player_id", flat=True))
    titles = []
    for title, refunds in sorted(outcome["refunds"].items()):
        rows = [dict(r) for r in refunds if r.get("player") not in banned and abs(r.get("delta") or 0) >= REFUND_SHOWN]
        rows.sort(key=lambda r: (-(r.get("delta") or 0), r.get("handle") or ""))
        losers = [r for r in rows if r["delta"] < 0]
        # The ring, for the reasons: the voided games' players the rebuild lowered (the banned among them).
        lowered = {r.get("player") for r in refunds if (r.get("delta") or 0) < 0} & ring
        met = _met(title=title, losers={r["player"] for r in losers}, ring=lowered, voided=voided)
        for row in losers:
            row["why"] = _why(met.get(row["player"], []), sat_at_voided=row["player"] in ring)
        refunded = [r["delta"] for r in rows if r["delta"] > 0]
        titles.append(
            {
                "title": title,
                "rows": rows,
                "total": round(sum(refunded), 2),
                "victims": len(refunded),
                "losers": len(losers),
                "lost": round(sum(r["delta"] for r in losers), 2),
                "left_out": len(refunds) - len(rows),
            }
        )
    return {"titles": titles, "pending": outcome["pending"], "rebuilt_at": outcome["rebuilt_at"], "games": len(voided)}
