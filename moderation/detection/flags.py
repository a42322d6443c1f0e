"""Stage 3, flags: one open flag per (beneficiary, title), raised, updated in place or withdrawn.

A dismissed or confirmed flag is raised again, as a new row, only for a suspect game it was not raised on. An
open flag re-evaluated without any feeder meeting the thresholds any more is withdrawn (status ``withdrawn``),
since detection runs after every batch and a few early games between two linked accounts can look like a
pattern that later games undo. The evidence a flag keeps is what the moderator's page shows (docs/moderation.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Min, Q, Sum

from arena.models import Game, Player, Seat
from moderation import crowds, rules
from moderation.detection.base import DetectionResult, chunks
from moderation.detection.suspects import Found, Pairs
from moderation.models import Flag, FlagFeeder, Link
from ratings.models import Rating, RatingChange

WITHDRAWN_NOTE = "Withdrawn by detection: on later games no linked account meets the thresholds any more."


def flagged_beneficiaries(players: set[int]) -> set[int]:
    """The beneficiaries of the open flags that name any of ``players``, as beneficiary or feeder."""
    out: set[int] = set()
    for chunk in chunks(sorted(players)):
        out |= set(
            Flag.objects.filter(status=Flag.Status.OPEN)
            .filter(Q(beneficiary_id__in=chunk) | Q(feeders__feeder_id__in=chunk))
            .values_list("beneficiary_id", flat=True)
        )
    return out


def flags_update(
    found: Found,
    pairs: Pairs,
    beneficiaries: set[int],
    since: datetime,
    now: datetime,
    result: DetectionResult,
    say: Callable[[str], None],
) -> None:
    """Raise or update a flag per (beneficiary, title) the ring's suspect pairs support; withdraw the open flags
    of ``beneficiaries`` that none supports any more."""
    by_flag: dict[tuple[int, str], dict[int, rules.PairStats]] = defaultdict(dict)
    for (b, f, title), stats in found.items():
        by_flag[(b, title)][f] = stats
    say(f"{len(found)} suspect pairs, {len(by_flag)} flags to raise or update")
    for (b, title), feeders in sorted(by_flag.items()):
        _raise_flag(b, title, feeders, pairs, since, now, result)
    # Open flags re-evaluated here that no feeder supports any more: an early run of luck between two linked
    # accounts that evened out over later games. Withdrawn, not left for a moderator to suspect on stale figures.
    stale = [
        flag
        for chunk in chunks(sorted(beneficiaries))
        for flag in Flag.objects.select_for_update().filter(status=Flag.Status.OPEN, beneficiary_id__in=chunk)
        if (flag.beneficiary_id, flag.title) not in by_flag
    ]
    for flag in stale:
        flag.status, flag.resolved_at = Flag.Status.WITHDRAWN, now
        flag.note = WITHDRAWN_NOTE
        flag.save(update_fields=["status", "resolved_at", "note", "updated_at"])
    result.flags_withdrawn += len(stale)


def _account(player: Player, games: int, now: datetime, first: datetime | None) -> dict[str, Any]:
    """An account as the flag shows it. Its age runs from its first rated game (issue 27 §3): Arena first sees an
    account when its game server first sends it, which for an old account is no age at all ("age 0 d")."""
    return {
        "id": player.pk,
        "handle": player.handle,
        "created_at": player.created_at.isoformat(),
        "first_game_at": first.isoformat() if first else None,
        "age_days": max((now - first).days, 0) if first else 0,
        "games": games,
        "status": player.status,
    }


def _shares(gains: dict[int, float], feeders: dict[int, rules.PairStats]) -> dict[int, float]:
    """Each feeder's non-overlapping share of the beneficiary's gain: a game shared with several feeders is split
    equally among them, so the shares add up to the flag's total (a per-feeder sum counts such a game once per
    feeder: 1,147 against a total of 387 on a shift)."""
    seated: dict[int, int] = defaultdict(int)
    for stats in feeders.values():
        for g in set(stats.game_ids):
            seated[g] += 1
    return {
        f: round(sum(gains.get(g, 0.0) / seated[g] for g in set(stats.game_ids)), 2) for f, stats in feeders.items()
    }


def _link_evidence(links: list[Link], strangers: dict[str, int]) -> list[dict[str, Any]]:
    """A link as the flag shows it: ``crowd`` counts the accounts outside the flag on its least crowded hash
    (``crowds.pair_strangers``), ``accounts_on_hash`` everyone detection saw on it."""
    out = []
    for link in links:
        crowd = strangers.get(link.kind, link.crowd)
        out.append(
            {
                "kind": link.kind,
                "keys": link.keys,
                "first_seen": link.first_seen.isoformat(),
                "last_seen": link.last_seen.isoformat(),
                "crowd": crowd,
                "accounts_on_hash": link.crowd,
                "crowded": rules.is_crowded(crowd),
                "weight": round(rules.link_weight(link.kind, crowd), 3),
            }
        )
    return out


def _hash_evidence(shared: crowds.SharedHash, players: dict[int, Player]) -> dict[str, Any]:
    return {
        "kind": shared.kind,
        "digest": shared.digest,
        "first": shared.first.isoformat(),
        "last": shared.last.isoformat(),
        "strangers": shared.strangers,
        "widely_shared": shared.widely_shared,
        "accounts": [players[p].handle for p in shared.accounts if p in players],
    }


@dataclass(frozen=True)
class _Ring:
    """What one flag's evidence reads about its beneficiary ``b`` and feeders, each in one query for the ring."""

    gains: dict[int, float]  # the beneficiary's Elo delta per suspect game
    players: dict[int, Player]
    played: dict[int, int]  # rated games over every title
    first: dict[int, datetime]  # first rated game
    hashes: list[crowds.SharedHash]


def _ring_read(b: int, feeders: dict[int, rules.PairStats], all_ids: list[int], since: datetime) -> _Ring:
    gains = dict(
        RatingChange.objects.filter(player_id=b, kind=RatingChange.Kind.GAME, game_id__in=all_ids).values_list(
            "game_id", "delta"
        )
    )
    players = Player.objects.in_bulk([b, *feeders])
    # Rated games over every title, one grouped query for the whole ring rather than one per account.
    played = dict(
        Rating.objects.filter(player_id__in=players)
        .values("player_id")
        .annotate(n=Sum("games"))
        .values_list("player_id", "n")
    )
    first = dict(
        Seat.objects.filter(player_id__in=players, game__status=Game.Status.RATED)
        .values("player_id")
        .annotate(first=Min("game__finished_at"))
        .values_list("player_id", "first")
    )
    # Each shared hash's crowd without the flag's own accounts (``crowds``): a ring is not its own crowd.
    hashes = crowds.shared_hashes(accounts=[b, *feeders], since=since - rules.LINK_WINDOW)
    return _Ring(gains=gains, players=players, played=played, first=first, hashes=hashes)


def _feeder_weigh(
    b: int, f: int, stats: rules.PairStats, ring: _Ring, pairs: Pairs, share: float, now: datetime
) -> tuple[float, dict[str, Any], FlagFeeder]:
    """One feeder's part of the flag's score, its evidence as the moderator's page shows it, and its row."""
    links = pairs.get((min(b, f), max(b, f)), [])
    strangers = crowds.pair_strangers(ring.hashes, b, f)
    weight = max(
        (rules.link_weight(link.kind, strangers.get(link.kind, link.crowd)) for link in links),
        default=0.0,
    )
    gained = round(sum(ring.gains.get(g, 0.0) for g in stats.game_ids), 2)
    evidence = {
        **_account(ring.players[f], ring.played.get(f) or 0, now, ring.first.get(f)),
        "shared_games": stats.shared_games,
        "wins": stats.wins,
        "win_share": round(stats.win_share, 4),
        "concentration": round(stats.concentration, 4),
        "shared_any": stats.shared_any,
        "rated_games_in_window": stats.feeder_games,
        "elo_gained": gained,
        "elo_share": share,
        "weight": round(weight, 3),
        "links": _link_evidence(links, strangers),
        "game_ids": stats.game_ids,
    }
    row = FlagFeeder(
        feeder_id=f,
        shared_games=stats.shared_games,
        wins=stats.wins,
        win_share=stats.win_share,
        concentration=stats.concentration,
        elo_gained=gained,
        link_kinds=sorted({link.kind for link in links}),
        weight=weight,
    )
    return rules.feeder_score(stats, weight), evidence, row


def _raise_flag(
    b: int,
    title: str,
    feeders: dict[int, rules.PairStats],
    pairs: Pairs,
    since: datetime,
    now: datetime,
    result: DetectionResult,
) -> None:
    """Raise the flag of (``b``, ``title``), or update the open one in place; skipped when a closed flag already
    covered every suspect game."""
    all_ids = sorted({g for stats in feeders.values() for g in stats.game_ids})
    open_flag = Flag.objects.select_for_update().filter(beneficiary_id=b, title=title, status=Flag.Status.OPEN).first()
    if open_flag is None:
        last = Flag.objects.filter(beneficiary_id=b, title=title).order_by("-pk").first()
        if last is not None and not rules.has_new_evidence(last.game_ids, all_ids):
            result.flags_skipped += 1
            return
    ring = _ring_read(b, feeders, all_ids, since)
    shares = _shares(ring.gains, feeders)
    weighed = [_feeder_weigh(b, f, stats, ring, pairs, shares[f], now) for f, stats in sorted(feeders.items())]
    elo_gained = round(sum(ring.gains.get(g, 0.0) for g in all_ids), 2)
    evidence = {
        "game": title,
        "beneficiary": _account(ring.players[b], ring.played.get(b) or 0, now, ring.first.get(b)),
        "window": {"from": since.isoformat(), "to": now.isoformat()},
        "feeders": [feeder for _, feeder, _ in weighed],
        "elo_gained": elo_gained,
        "game_ids": all_ids,
        "hashes": [_hash_evidence(h, ring.players) for h in ring.hashes],
    }
    score = rules.flag_score([part for part, _, _ in weighed], elo_gained)
    if open_flag is None:
        open_flag = Flag.objects.create(beneficiary_id=b, title=title, score=score, evidence=evidence, game_ids=all_ids)
        result.flags_created += 1
    else:
        open_flag.score, open_flag.evidence, open_flag.game_ids = score, evidence, all_ids
        open_flag.save(update_fields=["score", "evidence", "game_ids", "updated_at"])
        open_flag.feeders.all().delete()
        result.flags_updated += 1
    rows = [row for _, _, row in weighed]
    for row in rows:
        row.flag = open_flag
    FlagFeeder.objects.bulk_create(rows)
    result.flag_ids.append(open_flag.pk)


def flags_open() -> list[dict[str, Any]]:
    """Every open flag as the command prints it, highest score first."""
    out = []
    flags = Flag.objects.filter(status=Flag.Status.OPEN).select_related("beneficiary").order_by("-score", "pk")
    feeders: dict[int, list[str]] = defaultdict(list)
    for flag_id, handle in (
        FlagFeeder.objects.filter(flag__status=Flag.Status.OPEN)
        .order_by("feeder__handle")
        .values_list("flag_id", "feeder__handle")
    ):
        feeders[flag_id].append(handle)
    for flag in flags:
        out.append(
            {
                "flag": flag.pk,
                "game": flag.title,
                "beneficiary": flag.beneficiary.handle,
                "feeders": feeders[flag.pk],
                "score": flag.score,
            }
        )
    return out
