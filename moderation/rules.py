"""Pure rules of multiple-account detection and of the report queue (docs/moderation.md); no framework.

Everything here works on plain tuples and numbers so the thresholds can be tested at their edges by hand.
The policy (seed 004): a shared IP is a warning, boosting with extra accounts the offence, and "if there is any
possible doubt, a player should be considered not guilty": these rules only decide what a moderator reads first.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

# Two uses of one IP or device hash this close in time link the accounts: one household's or one person's
# machines are used within weeks, a recycled dynamic address months apart joins strangers.
LINK_WINDOW = timedelta(days=30)
# Only recent play is evidence: a ring is worth a moderator's time while it still feeds the leaderboards.
SUSPECT_WINDOW = timedelta(days=90)
# Fewer shared games than this is chance, not a pattern.
MIN_SHARED_GAMES = 5
# The beneficiary placed above the feeder in at least this share of their shared games of the title.
MIN_WIN_SHARE = 0.8
# An alt exists to feed its main: at least this share of the feeder's rated games (any title) were with B.
MIN_CONCENTRATION = 0.8
# A hash used by more accounts than a household holds is a school, a café or a carrier's NAT: its links count
# for less (CROWD_FREE / crowd), since most pairs through it are strangers.
CROWD_FREE = 4
# The moderators' crowded rule (docs/moderation.md, "Crowded addresses"): a hash seen on more than this many
# accounts within LINK_WINDOW is a carrier's NAT or a public terminal. It links only accounts that sat at one table
# through it (N accounts would otherwise cost N(N-1)/2 links), and the panel marks it "widely shared".
CROWDED_ACCOUNTS = 50
# A device hash is a stronger tie than an IP hash (one machine, not one network).
KIND_WEIGHT = {"device": 1.0, "ip": 0.8}
# A reporter's track record counts only after this many resolved reports; before, they are neutral.
MIN_REPORTS_FOR_RECORD = 3
NEUTRAL_RECORD = 0.5
# Spelled out for the reporter: the policy's answer to a report whose only reason is a shared IP.
SAME_IP_ANSWER = (
    "Playing at one table from the same IP address is allowed: a family or a flat share may play together. "
    "Everyone at the table is warned of it, and you may refuse same-IP tables in matchmaking. Report "
    "multiple_accounts if you believe one person plays several accounts to boost one of them."
)


# ---------------------------------------------------------------------------------------------------------------
# Links
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class PairSpan:
    """When two accounts' uses of one hash fell within LINK_WINDOW of each other: first and last such use."""

    first: datetime
    last: datetime

    def widen(self, earlier: datetime, later: datetime) -> None:
        self.first = min(self.first, earlier)
        self.last = max(self.last, later)


def close_pairs(
    uses: Sequence[tuple[int, datetime]],
    new: Iterable[tuple[int, datetime]] | None = None,
    window: timedelta = LINK_WINDOW,
) -> dict[tuple[int, int], PairSpan]:
    """Pairs (lower id, higher id) of different players whose uses of one hash were at most ``window`` apart.

    ``uses`` is every known use (player, time) of the hash in the range that matters; ``new`` restricts the
    search to pairs involving those uses (incremental runs), default all of ``uses``. Inclusive at the edge:
    exactly 30 days apart still links. Cost: probes × accounts on the hash × log(uses), so a household address
    used a thousand times costs no more per new game than one used twice.
    """
    times: dict[int, list[datetime]] = {}
    for player, at in uses:
        times.setdefault(player, []).append(at)
    for series in times.values():
        series.sort()
    probes = uses if new is None else new
    out: dict[tuple[int, int], PairSpan] = {}
    for player, at in probes:
        for other, series in times.items():
            if other == player:
                continue
            lo = bisect.bisect_left(series, at - window)
            hi = bisect.bisect_right(series, at + window)
            if lo >= hi:
                continue
            _pair_widen(out, player, other, min(at, series[lo]), max(at, series[hi - 1]))
    return out


def _pair_widen(out: dict[tuple[int, int], PairSpan], a: int, b: int, earlier: datetime, later: datetime) -> None:
    """The pair's span (lower id first) grown to cover ``earlier``..``later``, or started with it."""
    key = (a, b) if a < b else (b, a)
    span = out.get(key)
    if span is None:
        out[key] = PairSpan(earlier, later)
    else:
        span.widen(earlier, later)


def link_weight(kind: str, crowd: int) -> float:
    """How much one link counts in the score: full for a household-sized hash, less the more accounts share it."""
    return KIND_WEIGHT.get(kind, 0.8) * min(1.0, CROWD_FREE / max(crowd, 1))


def is_crowded(crowd: int) -> bool:
    """The crowded rule: more than ``CROWDED_ACCOUNTS`` accounts on one hash within 30 days ("widely shared")."""
    return crowd > CROWDED_ACCOUNTS


def table_pairs(uses: Iterable[tuple[int, datetime, int]]) -> dict[tuple[int, int], PairSpan]:
    """Pairs (lower id, higher id) of different players who used one hash at the same table: the only pairs a
    crowded hash links. ``uses`` are (player, finished_at, game_id); cost follows the tables, not the crowd."""
    tables: dict[int, list[tuple[int, datetime]]] = {}
    for player, at, game in uses:
        tables.setdefault(game, []).append((player, at))
    out: dict[tuple[int, int], PairSpan] = {}
    for seated in tables.values():
        for i, (a, at) in enumerate(seated):
            for b, _ in seated[i + 1 :]:
                if a != b:
                    _pair_widen(out, a, b, at, at)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Suspect pairs
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class PairStats:
    """What one linked pair (beneficiary B, feeder F) did in one title inside SUSPECT_WINDOW."""

    shared_games: int  # rated games of this title both played
    wins: int  # of those, games where B placed strictly above F
    shared_any: int  # rated games of any title both played
    feeder_games: int  # all of F's rated games, any title
    game_ids: list[int] = field(default_factory=list)

    @property
    def win_share(self) -> float:
        return self.wins / self.shared_games if self.shared_games else 0.0

    @property
    def concentration(self) -> float:
        return self.shared_any / self.feeder_games if self.feeder_games else 0.0


def is_suspect(stats: PairStats) -> bool:
    """The spec's three conditions, each inclusive at its threshold; integer arithmetic, so 80 % is exact."""
    return (
        stats.shared_games >= MIN_SHARED_GAMES
        and stats.wins * 100 >= round(MIN_WIN_SHARE * 100) * stats.shared_games
        and stats.shared_any * 100 >= round(MIN_CONCENTRATION * 100) * stats.feeder_games
        and stats.feeder_games > 0
    )


def above(b_place: int | None, f_place: int | None) -> bool:
    """B placed above F (1 is best); a shared place or a cooperative game (no places) is not above."""
    return b_place is not None and f_place is not None and b_place < f_place


def pair_stats(games: Iterable[tuple[int, str, int | None, int | None]], title: str, feeder_games: int) -> PairStats:
    """Fold the shared games ``(game_id, title, b_place, f_place)`` (any title, inside the window) of one pair."""
    stats = PairStats(shared_games=0, wins=0, shared_any=0, feeder_games=feeder_games)
    for game_id, game_title, b_place, f_place in games:
        stats.shared_any += 1
        if game_title == title:
            stats.shared_games += 1
            stats.game_ids.append(game_id)
            if above(b_place, f_place):
                stats.wins += 1
    return stats


def feeder_score(stats: PairStats, weight: float) -> float:
    """One feeder's part of the flag's score: games × win share × concentration, through the link's weight.

    Grows with the amount of boosting (games) and with how clear it is (shares near 1), and shrinks when the only
    tie is a crowded address, so a ring on one device comes before a café's coincidence.
    """
    return weight * stats.shared_games * stats.win_share * stats.concentration


def flag_score(parts: Iterable[float], elo_gained: float) -> float:
    """The queue's order: the feeders' parts added up (a ring of many alts first), nudged by the Elo gained."""
    total = sum(parts)
    return round(total * (1.0 + math.log1p(max(elo_gained, 0.0)) / 10.0), 3)


def has_new_evidence(known: Iterable[int], current: Iterable[int]) -> bool:
    """A dismissed or confirmed flag is raised again only for a suspect game it was not raised on."""
    return not set(current) <= set(known)


# ---------------------------------------------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------------------------------------------


def track_record(upheld: int, dismissed: int) -> float:
    """Share of a reporter's resolved reports that moderators upheld; neutral until they have made a few."""
    resolved = upheld + dismissed
    if resolved < MIN_REPORTS_FOR_RECORD:
        return NEUTRAL_RECORD
    return upheld / resolved


def report_score(*, record: float, reason: str) -> float:
    """The report queue's order: reliable reporters first; among equals a kingmaking report (a cited move) first."""
    return round(record * 10 + (1 if reason == "kingmaking" else 0), 3)
