"""How crowded each hash that ties a group of accounts is, counted without the group itself (docs/moderation.md).

A ring counts as its own crowd if the count includes it: a main and 4 alts on one device make "5 accounts", and
every pair of the ring would read as "widely shared". What a moderator needs is how many *other* accounts used the
hash: 0 for a device only the ring uses, the strangers for a café with a ring inside. The flag's evidence, its
score's weighting (``rules.link_weight``) and the confirm page's warnings all read this one count.

Raw hashes never leave this module: a hash is named by the short digest detection already keeps in ``Link``.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max, Min

from arena.models import Seat
from moderation import rules
from moderation.models import Link

# Which seat column holds each kind of hash.
COLUMNS = {Link.Kind.IP: "ip_hash", Link.Kind.DEVICE: "device_hash"}


def hash_digest(value: str) -> str:
    """The short digest of an (already keyed) hash that ``Link.key_digests`` keeps and the panel may show."""
    return hashlib.sha256(value.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SharedHash:
    """One hash at least two of the group used: which of them, when, and how many accounts outside the group used
    it within ``rules.LINK_WINDOW`` of those uses (``strangers``)."""

    kind: str
    digest: str
    accounts: tuple[int, ...]
    first: datetime
    last: datetime
    strangers: int

    @property
    def widely_shared(self) -> bool:
        """The crowded rule, on the strangers alone: more than ``rules.CROWDED_ACCOUNTS`` other accounts."""
        return rules.is_crowded(self.strangers)

    def ties(self, a: int, b: int) -> bool:
        return a in self.accounts and b in self.accounts


def shared_hashes(*, accounts: Iterable[int], since: datetime | None = None) -> list[SharedHash]:
    """Every hash (IP or device) that two or more of ``accounts`` used (since ``since``, when given), with its
    strangers. Queries: one per kind for the group's uses, one count per shared hash (a ring shares a few)."""
    group = sorted(set(accounts))
    out: list[SharedHash] = []
    if len(group) < 2:
        return out
    for kind, column in COLUMNS.items():
        seats = Seat.objects.filter(player_id__in=group).exclude(**{f"{column}__isnull": True}).exclude(**{column: ""})
        if since is not None:
            seats = seats.filter(game__finished_at__gte=since)
        uses = (
            seats.values(column)
            .annotate(
                first=Min("game__finished_at"), last=Max("game__finished_at"), n=Count("player_id", distinct=True)
            )
            .filter(n__gte=2)
        )
        for row in uses:
            key = row[column]
            who = sorted(
                set(Seat.objects.filter(**{column: key}, player_id__in=group).values_list("player_id", flat=True))
            )
            strangers = (
                Seat.objects.filter(
                    **{column: key},
                    game__finished_at__gte=row["first"] - rules.LINK_WINDOW,
                    game__finished_at__lte=row["last"] + rules.LINK_WINDOW,
                )
                .exclude(player_id__in=group)
                .aggregate(n=Count("player_id", distinct=True))["n"]
            )
            out.append(
                SharedHash(
                    kind=kind,
                    digest=hash_digest(key),
                    accounts=tuple(who),
                    first=row["first"],
                    last=row["last"],
                    strangers=strangers,
                )
            )
    out.sort(key=lambda h: (h.kind, h.first, h.digest))
    return out


def pair_strangers(hashes: Iterable[SharedHash], a: int, b: int) -> dict[str, int]:
    """Per kind, the strangers of the least crowded hash tying ``a`` and ``b``: a tie is as strong as its best
    hash (a private device beside a café address is still a private device)."""
    best: dict[str, int] = defaultdict(lambda: -1)
    for h in hashes:
        if h.ties(a, b) and (best[h.kind] < 0 or h.strangers < best[h.kind]):
            best[h.kind] = h.strangers
    return {kind: n for kind, n in best.items() if n >= 0}
