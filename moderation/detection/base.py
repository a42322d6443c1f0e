"""What every stage of a detection pass shares: the pass's tally and the chunking of long id lists."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

# Ids per ``IN (...)`` list: long enough to keep round trips few, short enough for any database's parameter limit.
CHUNK = 2000
T = TypeVar("T")


@dataclass
class DetectionResult:
    """What one pass did, for the command's summary and the benchmark."""

    games: int = 0  # new games (above the id watermark): their seats' links
    rated: int = 0  # newly rated games (above their title's rating cursor): who sat together
    watermark: int = 0
    more: bool = False  # a pass stopped at its limit: there is more to look at
    links_created: int = 0
    links_updated: int = 0
    pairs_evaluated: int = 0
    suspect_pairs: int = 0
    flags_created: int = 0
    flags_updated: int = 0
    flags_skipped: int = 0  # dismissed or confirmed, nothing new
    flags_withdrawn: int = 0  # open, but no feeder meets the thresholds any more
    flag_ids: list[int] = field(default_factory=list)


# The counters ``detection_run_all`` adds up over its passes.
COUNTERS = (
    "games",
    "rated",
    "links_created",
    "links_updated",
    "pairs_evaluated",
    "suspect_pairs",
    "flags_created",
    "flags_updated",
    "flags_skipped",
    "flags_withdrawn",
)


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
