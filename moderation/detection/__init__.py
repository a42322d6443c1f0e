"""Incremental multiple-account detection over the database: links, suspect pairs, flags (docs/moderation.md).

The rules (thresholds, what a suspect pair is, the score) live in ``moderation.rules``; this package only reads
what they need and writes links and flags. Its cost follows the new games, not the history. A pass
(``run.detection_run``) goes through named stages, each its own module:

1. ``cursors``: which games are new (above the id watermark) and which newly rated (above each title's rating
   cursor), and how far behind detection is;
2. ``links``: the accounts the new seats put on one address or device, merged into links;
3. ``suspects``: the linked pairs touched by the new games, then every beneficiary found against their whole ring;
4. ``flags``: one open flag per (beneficiary, title), raised, updated in place or withdrawn.

Nothing here punishes anyone: "if there is any possible doubt, a player should be considered not guilty".
"""

from __future__ import annotations

from moderation.detection.base import DetectionResult
from moderation.detection.cursors import DetectionPending, detection_lag, detection_pending, watermark_reset
from moderation.detection.flags import flags_open
from moderation.detection.run import detection_run, detection_run_all

__all__ = [
    "DetectionPending",
    "DetectionResult",
    "detection_lag",
    "detection_pending",
    "detection_run",
    "detection_run_all",
    "flags_open",
    "watermark_reset",
]
