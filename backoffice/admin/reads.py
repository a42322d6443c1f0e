"""Reads behind the panel's pages, each a fixed number of queries whatever the size of a player's history.

Shaped for templates (plain dicts and lists). Nothing here writes; every action goes through a service.
Raw IP or device hashes never leave this module: the pages show which accounts share an address, and when,
never the hash itself (docs/moderation.md: IP addresses are personal data).
"""

from __future__ import annotations

import string
from collections import defaultdict
from datetime import datetime
from typing import Any

from django.db.models import Max, Min, Q
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from arena.games import GAMES
from arena.models import Game, Player, Seat
from backoffice.admin.charts import HistoryPlot, HistoryPoint, history_svg
from backoffice.admin.ring_chart import Ring, RingLink, RingNode, ring_svg
from moderation import rules
from moderation.models import AuditEntry, BanTerm, Flag, Link, Report
from moderation.selectors import linked_accounts
from moderation.void_summary import void_summary
from ratings import elo
from ratings.config import elo_config
from ratings.models import Rating, RatingChange

RECENT_GAMES = 20
# Beyond this many entries a plot drops the per-game dots (the line stays): thousands of circles say nothing more.
PLOT_DOTS_MAX = 400


def widely_shared(crowd: int) -> bool:
    """A hash used by more accounts than a household holds (``rules.is_crowded``): a school, a café, a NAT."""
    return rules.is_crowded(crowd)


def _safe_svg(svg: str) -> SafeString:
    """The one place the panel trusts markup: SVG from ``charts``, which escapes every string it puts in."""
    return mark_safe(svg)


def player_ratings(*, player: Player) -> list[dict[str, Any]]:
    rows = Rating.objects.filter(player=player).order_by("title")
    return [
        {
            "title": r.title,
            "elo": round(r.elo, 2),
            "games": r.games,
            "last_game_at": r.last_game_at,
            "level": elo.level(r.elo, initial=elo_config().initial),
        }
        for r in rows
    ]


def player_plots(*, player: Player) -> list[dict[str, Any]]:
    """One SVG per title: every history entry (games and resets) and the player's voided games of the title."""
    points: dict[str, list[HistoryPoint]] = defaultdict(list)
    flagged = {
        g
        for ids in Flag.objects.filter(Q(beneficiary=player) | Q(feeders__feeder=player)).values_list(
            "game_ids", flat=True
        )
        for g in (ids or [])
    }
    for title, at, before, after, kind, game_id, table_id in (
        RatingChange.objects.filter(player=player)
        .order_by("title", "seq")
        .values_list("title", "finished_at", "before", "after", "kind", "game_id", "game__table_id")
    ):
        points[title].append(
            HistoryPoint(
                at=at,
                before=before,
                after=after,
                kind=kind,
                game_id=game_id,
                table_id=table_id or "",
                flagged=game_id in flagged,
            )
        )
    voids: dict[str, list[datetime]] = defaultdict(list)
    for title, at in Game.objects.filter(seats__player=player, status=Game.Status.VOID).values_list(
        "title", "finished_at"
    ):
        voids[title].append(at)
    out = []
    for title in sorted(points.keys() | voids.keys()):
        entries = points.get(title, [])
        resets = sum(1 for p in entries if p.kind == RatingChange.Kind.RESET)
        # Safe: charts.py escapes every string it interpolates (and only numbers are formatted raw).
        svg = _safe_svg(
            history_svg(
                HistoryPlot(title=title, points=entries, voids=voids.get(title, ()), initial=elo_config().initial),
                dots=len(entries) <= PLOT_DOTS_MAX,
            )
        )
        out.append(
            {"title": title, "svg": svg, "entries": len(entries), "resets": resets, "voids": len(voids.get(title, ()))}
        )
    return out


def recent_games(*, player: Player, limit: int = RECENT_GAMES) -> list[dict[str, Any]]:
    seats = list(Seat.objects.filter(player=player).select_related("game").order_by("-game_id")[:limit])
    deltas = dict(
        RatingChange.objects.filter(
            player=player, kind=RatingChange.Kind.GAME, game_id__in=[s.game_id for s in seats]
        ).values_list("game_id", "delta")
    )
    return [{"game": s.game, "place": s.place, "score": s.score, "delta": deltas.get(s.game_id)} for s in seats]


def player_flags(*, player: Player) -> list[Flag]:
    return list(
        Flag.objects.filter(Q(beneficiary=player) | Q(feeders__feeder=player))
        .distinct()
        .select_related("beneficiary")
        .order_by("-created_at")
    )


def player_reports(*, player: Player) -> list[Report]:
    return list(Report.objects.filter(accused=player).select_related("reporter", "game").order_by("-created_at"))


def player_audit(*, player: Player) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(players=player).select_related("moderator").order_by("-created_at")[:20])


def player_standing(*, player: Player) -> dict[str, Any]:
    """When the ban ends (a timed ban's term, or "until lifted"), the recorded warnings and the moderators' private
    notes, newest first (``moderation.services.standing``)."""
    term = BanTerm.objects.filter(player=player).first()
    entries = list(
        player.audit_entries.filter(action__in=[AuditEntry.Action.WARN, AuditEntry.Action.NOTE]).order_by(
            "-created_at", "-pk"
        )
    )
    ban = None
    if player.is_banned:  # who banned, when, why, in which case: the last ban or confirmation naming the player
        ban = (
            player.audit_entries.filter(action__in=[AuditEntry.Action.BAN, AuditEntry.Action.CONFIRM_MULTIPLE_ACCOUNTS])
            .prefetch_related("flags", "reports")
            .order_by("-created_at", "-pk")
            .first()
        )
    return {
        "banned": player.is_banned,
        "ban_until": term.until if term else None,
        "ban": ban,
        "ban_overdue": bool(term and term.until <= timezone.now()),
        "warnings": [e for e in entries if e.action == AuditEntry.Action.WARN],
        "notes": [e for e in entries if e.action == AuditEntry.Action.NOTE],
    }


def _first_rated(player: Player) -> datetime | None:
    """The account's first rated game: its age runs from there, not from when Arena first saw it."""
    return Seat.objects.filter(player=player, game__status=Game.Status.RATED).aggregate(first=Min("game__finished_at"))[
        "first"
    ]


def player_case_file(*, player: Player) -> dict[str, Any]:
    now = timezone.now()
    return {
        "standing": player_standing(player=player),
        "age_days": (now - first).days if (first := _first_rated(player)) else None,
        "ratings": player_ratings(player=player),
        "plots": player_plots(player=player),
        "recent_games": recent_games(player=player),
        "links": linked_accounts(player=player),
        "flags": player_flags(player=player),
        "reports": player_reports(player=player),
        "audit": player_audit(player=player),
    }


# ---------------------------------------------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------------------------------------------


def _group_marks(values: list[str | None]) -> list[str]:
    """A letter per value shared by two or more seats ("A", "B"...), "" for the others; never the value itself."""
    counts: dict[str, int] = defaultdict(int)
    for value in values:
        if value:
            counts[value] += 1
    letters: dict[str, str] = {}
    marks = []
    for value in values:
        if value and counts[value] > 1:
            letters.setdefault(value, string.ascii_uppercase[len(letters) % 26])
            marks.append(letters[value])
        else:
            marks.append("")
    return marks


def game_page(*, game: Game) -> dict[str, Any]:
    seats = list(Seat.objects.filter(game=game).select_related("player").order_by("position"))
    changes = {c.player_id: c for c in RatingChange.objects.filter(game=game, kind=RatingChange.Kind.GAME)}
    ip_marks = _group_marks([s.ip_hash for s in seats])
    device_marks = _group_marks([s.device_hash for s in seats])
    coop = GAMES[game.title].cooperative if game.title in GAMES else False
    rows = []
    for seat, ip_mark, device_mark in zip(seats, ip_marks, device_marks, strict=True):
        change = changes.get(seat.player_id)
        rows.append(
            {
                "seat": seat,
                "player": seat.player,
                "place": seat.place,
                "score": seat.score,
                "team": seat.team,
                "quit": seat.quit,
                "same_ip": ip_mark,
                "same_device": device_mark,
                "before": change and round(change.before, 2),
                "after": change and round(change.after, 2),
                "delta": change and round(change.delta, 2),
            }
        )
    voids = list(
        AuditEntry.objects.filter(games=game, action=AuditEntry.Action.VOID_GAMES)
        .select_related("moderator")
        .order_by("-created_at")
    )
    return {
        "rows": rows,
        "cooperative": coop,
        "coop_score": game.coop_score,
        "any_banned": any(s.player.is_banned for s in seats),
        "same_ip_groups": len({m for m in ip_marks if m}),
        "void_entries": [
            {
                "entry": e,
                "summary": void_summary(e),
                "changes_before": (e.details or {}).get("game_changes", {}).get(str(game.pk), []),
            }
            for e in voids
        ],
    }


# ---------------------------------------------------------------------------------------------------------------
# Flags
# ---------------------------------------------------------------------------------------------------------------


def _pct(share: float | None) -> str:
    return "" if share is None else f"{share * 100:.0f} %"


def _link_label(kind: str, keys: int, crowd: int) -> str:
    """ "ip", "device ×2" (two shared devices), "ip (7)" when seven accounts use it: short enough for the picture."""
    text = kind + (f" ×{keys}" if keys > 1 else "")
    return text + (f" ({crowd})" if widely_shared(crowd) else "")


def _strangers(evidence: dict[str, Any], kind: str, a: str, b: str, default: int) -> int:
    """The accounts outside the flag on the least crowded hash of ``kind`` tying ``a`` and ``b`` (the evidence's
    ``hashes``, ``moderation.crowds``); ``default`` for a flag raised before detection wrote them."""
    counts = [
        int(h.get("strangers") or 0)
        for h in evidence.get("hashes", [])
        if h.get("kind") == kind and a in h.get("accounts", []) and b in h.get("accounts", [])
    ]
    return min(counts) if counts else default


def flag_ring(*, flag: Flag, banned: set[int]) -> SafeString:
    """The picture of the ring: the beneficiary, every feeder, the games between them (with B's win share), every
    shared-hash link the evidence lists and those among the feeders, the crowded ones marked."""
    evidence = flag.evidence or {}
    ben = evidence.get("beneficiary") or {"id": flag.beneficiary_id, "handle": flag.beneficiary.handle}
    nodes = [
        RingNode(
            handle=ben.get("handle", ""),
            beneficiary=True,
            banned=ben.get("id") in banned,
            lines=[f"age {ben.get('age_days', '?')} d", f"{ben.get('games', '?')} games"],
        )
    ]
    links = []
    for feeder in evidence.get("feeders", []):
        handle = feeder.get("handle", "")
        nodes.append(
            RingNode(
                handle=handle,
                banned=feeder.get("id") in banned,
                lines=[f"age {feeder.get('age_days', '?')} d", f"{feeder.get('games', '?')} games"],
            )
        )
        links.append(
            RingLink(
                a=ben.get("handle", ""),
                b=handle,
                kind="games",
                label=f"{feeder.get('wins', 0)}/{feeder.get('shared_games', 0)} won ({_pct(feeder.get('win_share'))})",
            )
        )
        for link in feeder.get("links", []):
            crowd = int(link.get("crowd") or 0)
            links.append(
                RingLink(
                    a=ben.get("handle", ""),
                    b=handle,
                    kind=str(link.get("kind", "")),
                    label=_link_label(str(link.get("kind", "")), int(link.get("keys") or 0), crowd),
                    widely_shared=widely_shared(crowd),
                )
            )
    # Links among the feeders themselves (alts on one machine): not evidence against B, but part of the picture.
    by_id = {f.get("id"): f.get("handle", "") for f in evidence.get("feeders", []) if f.get("id") is not None}
    for link in Link.objects.filter(player_a__in=list(by_id), player_b__in=list(by_id)).order_by("pk"):
        a, b = by_id[link.player_a_id], by_id[link.player_b_id]
        links.append(
            RingLink(
                a=a,
                b=b,
                kind=link.kind,
                label="",
                widely_shared=widely_shared(_strangers(evidence, link.kind, a, b, link.crowd)),
            )
        )
    return _safe_svg(ring_svg(Ring(nodes=nodes, links=links)))


def flag_page(*, flag: Flag) -> dict[str, Any]:
    evidence = flag.evidence or {}
    feeders = evidence.get("feeders", [])
    ids = [flag.beneficiary_id, *(f.get("id") for f in feeders if f.get("id") is not None)]
    players = {p.pk: p for p in Player.objects.filter(pk__in=ids)}
    banned = {pk for pk, p in players.items() if p.is_banned}
    rows = []
    for feeder in feeders:
        link_rows = [
            {**link, "widely_shared": widely_shared(int(link.get("crowd") or 0))} for link in feeder.get("links", [])
        ]
        rows.append(
            {
                **feeder,
                "player": players.get(feeder.get("id")),
                "links": link_rows,
                "win_pct": _pct(feeder.get("win_share")),
                "concentration_pct": _pct(feeder.get("concentration")),
                "game_count": len(feeder.get("game_ids", [])),
            }
        )
    game_ids = list(evidence.get("game_ids") or flag.game_ids or [])
    span = Game.objects.filter(pk__in=game_ids).aggregate(first=Min("finished_at"), last=Max("finished_at"))
    return {
        "games_span": span,
        "today": flag_today(flag=flag, game_ids=game_ids, judged=evidence.get("elo_gained")),
        "voids": flag_voids(flag=flag, accounts=ids),
        "evidence": evidence,
        "beneficiary": evidence.get("beneficiary") or {},
        "beneficiary_player": players.get(flag.beneficiary_id),
        "feeders": rows,
        "ring": flag_ring(flag=flag, banned=banned),
        "games": list(Game.objects.filter(pk__in=game_ids[:100]).order_by("-finished_at")),
        "game_total": len(game_ids),
        "crowded": [r for r in rows if any(link["widely_shared"] for link in r["links"])],
        "audit": list(flag.audit_entries.select_related("moderator").order_by("-created_at")),
    }


def flag_today(*, flag: Flag, game_ids: list[int], judged: float | None) -> dict[str, Any] | None:
    """A closed flag's evidence stays as it was judged (detection rewrites open flags only); today's Elo the
    beneficiary holds from those games is shown beside it when it differs (voids and rebuilds move it), so a
    closed case's figures never change under the verdict unannounced (issue 27 §3)."""
    if flag.status == Flag.Status.OPEN or judged is None:
        return None
    now = sum(
        RatingChange.objects.filter(
            player_id=flag.beneficiary_id, kind=RatingChange.Kind.GAME, game_id__in=game_ids
        ).values_list("delta", flat=True)
    )
    now = round(now, 2)
    return None if abs(now - judged) < 0.005 else {"elo_gained": now, "judged_at": flag.resolved_at}


def flag_voids(*, flag: Flag, accounts: list[int]) -> list[dict[str, Any]]:
    """The voids of this ring: void actions on games any of the flag's accounts played, newest first, each with
    its summary line and a link to its page."""
    entries = (
        AuditEntry.objects.filter(action=AuditEntry.Action.VOID_GAMES, players__in=accounts)
        .select_related("moderator")
        .distinct()
        .order_by("-created_at")
    )
    return [{"entry": e, "summary": void_summary(e)} for e in entries[:20]]


def flag_candidates(*, flag: Flag) -> list[Player]:
    """Who may be chosen as the primary account: the beneficiary first, then the feeders."""
    ids = [flag.beneficiary_id, *flag.feeders.order_by("id").values_list("feeder_id", flat=True)]
    players = {p.pk: p for p in Player.objects.filter(pk__in=ids)}
    return [players[i] for i in dict.fromkeys(ids) if i in players]
