"""Stage 1, links: the accounts the new games' seats put on one address or device, merged into ``Link`` rows.

Only the hashes the new games' seats used are looked at, and only their uses within ``LINK_WINDOW`` of a new use
(``rules.close_pairs`` with the new uses as probes). Existing links are merged, never recounted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db.models import Count, Q
from django.utils import timezone

from arena.models import Seat
from moderation import crowds, rules
from moderation.detection.base import DetectionResult, chunks
from moderation.models import Link
from moderation.store import links_insert


def links_update(seats: list[tuple[Any, ...]], result: DetectionResult) -> set[tuple[int, int]]:
    """Merge the links the new seats create; returns the pairs whose links were created or widened.

    A hash's crowd (accounts seen on it within ``LINK_WINDOW`` of the new uses) is counted in the database first.
    A crowded hash (``rules.is_crowded``: a carrier's NAT) links only the accounts seated at one new table through
    it (``rules.table_pairs``), so neither its uses nor its N(N-1)/2 pairs are ever loaded; every other hash links
    every pair of uses within the window (``rules.close_pairs``), as before.
    """
    touched: set[tuple[int, int]] = set()
    for kind, column, index in ((Link.Kind.IP, "ip_hash", 2), (Link.Kind.DEVICE, "device_hash", 3)):
        new_uses: dict[str, list[tuple[int, datetime, int]]] = defaultdict(list)
        for seat in seats:
            if seat[index]:
                new_uses[seat[index]].append((seat[1], seat[4], seat[0]))
        if not new_uses:
            continue
        times = [t for uses in new_uses.values() for _, t, _ in uses]
        lo, hi = min(times) - rules.LINK_WINDOW, max(times) + rules.LINK_WINDOW
        in_window = {f"{column}__in": (), "game__finished_at__gte": lo, "game__finished_at__lte": hi}
        sizes: dict[str, int] = {}
        for chunk in chunks(sorted(new_uses)):
            in_window[f"{column}__in"] = chunk
            sizes.update(
                Seat.objects.filter(**in_window)
                .values_list(column)
                .annotate(n=Count("player_id", distinct=True))
                .values_list(column, "n")
            )
        plain = sorted(key for key in new_uses if not rules.is_crowded(sizes.get(key, 0)))
        known: dict[str, list[tuple[int, datetime]]] = defaultdict(list)
        for chunk in chunks(plain):
            in_window[f"{column}__in"] = chunk
            for key, player, at in Seat.objects.filter(**in_window).values_list(
                column, "player_id", "game__finished_at"
            ):
                known[key].append((player, at))
        spans: dict[tuple[int, int], tuple[datetime, datetime, set[str], int]] = {}
        for key, uses in new_uses.items():
            crowd = sizes.get(key) or len({player for player, _, _ in uses})
            if crowd < 2:
                continue
            if rules.is_crowded(crowd):
                pairs = rules.table_pairs(uses)
            else:
                pairs = rules.close_pairs(known.get(key) or [(p, t) for p, t, _ in uses], [(p, t) for p, t, _ in uses])
            digest = crowds.hash_digest(key)
            for pair, span in pairs.items():
                old = spans.get(pair)
                if old is None:
                    spans[pair] = (span.first, span.last, {digest}, crowd)
                else:
                    spans[pair] = (
                        min(old[0], span.first),
                        max(old[1], span.last),
                        old[2] | {digest},
                        max(old[3], crowd),
                    )
        if spans:
            touched |= _merge_links(kind, spans, result)
    return touched


def _merge_links(
    kind: str, spans: dict[tuple[int, int], tuple[Any, ...]], result: DetectionResult
) -> set[tuple[int, int]]:
    existing = {pair: links[0] for pair, links in links_of_pairs(set(spans), kind=kind).items()}
    create, update = [], []
    touched: set[tuple[int, int]] = set()
    for (a, b), (first, last, digests, crowd) in spans.items():
        link = existing.get((a, b))
        if link is None:
            create.append(
                Link(
                    player_a_id=a,
                    player_b_id=b,
                    kind=kind,
                    keys=len(digests),
                    key_digests=sorted(digests),
                    first_seen=first,
                    last_seen=last,
                    crowd=crowd,
                )
            )
            touched.add((a, b))
            continue
        merged = sorted(set(link.key_digests) | digests)
        if (
            merged == sorted(link.key_digests)
            and first >= link.first_seen
            and last <= link.last_seen
            and crowd <= link.crowd
        ):
            continue
        link.key_digests, link.keys = merged, len(merged)
        link.first_seen, link.last_seen = min(link.first_seen, first), max(link.last_seen, last)
        link.crowd = max(link.crowd, crowd)
        link.updated_at = timezone.now()
        update.append(link)
        touched.add((a, b))
    links_insert(create)
    # One UPDATE per widened link: Django's bulk_update builds a CASE per column per row, which costs more to
    # compile than these few hundred single-row updates by primary key cost to run.
    for link in update:
        Link.objects.filter(pk=link.pk).update(
            keys=link.keys,
            key_digests=link.key_digests,
            first_seen=link.first_seen,
            last_seen=link.last_seen,
            crowd=link.crowd,
            updated_at=link.updated_at,
        )
    result.links_created += len(create)
    result.links_updated += len(update)
    return touched


def links_of_pairs(pairs: set[tuple[int, int]], kind: str | None = None) -> dict[tuple[int, int], list[Link]]:
    """The links of exactly these (lower id, higher id) pairs (of one ``kind`` if given)."""
    out: dict[tuple[int, int], list[Link]] = defaultdict(list)
    by_first: dict[int, set[int]] = defaultdict(set)
    for a, b in pairs:
        by_first[a].add(b)
    for chunk in chunks(sorted(by_first)):
        for seconds in chunks(sorted({b for a in chunk for b in by_first[a]})):
            rows = Link.objects.filter(player_a_id__in=chunk, player_b_id__in=seconds)
            for link in rows.filter(kind=kind) if kind else rows:
                if (link.player_a_id, link.player_b_id) in pairs:
                    out[(link.player_a_id, link.player_b_id)].append(link)
    return out


def links_of_players(players: Iterable[int]) -> dict[tuple[int, int], list[Link]]:
    """Every link of these players, by unordered pair (lower id first)."""
    ids = sorted(set(players))
    out: dict[tuple[int, int], list[Link]] = defaultdict(list)
    seen: set[int] = set()
    for chunk in chunks(ids):
        for link in Link.objects.filter(Q(player_a_id__in=chunk) | Q(player_b_id__in=chunk)):
            if link.pk not in seen:
                seen.add(link.pk)
                out[(link.player_a_id, link.player_b_id)].append(link)
    return out
