"""What moderation hears from below (``infra/announcements.py``), subscribed once by ``ModerationConfig.ready``.

Detection follows rating batches; ratings never call us. Every app keeps its listeners in its ``listeners.py``
(docs/architecture.md#announcements-and-hand-offs).
"""

from __future__ import annotations

from infra.announcements import RatingsChanged, subscribe
from moderation.tasks import request_detection


def on_ratings_changed(fact: RatingsChanged) -> None:
    """A rated batch brings new games to look at (resets and rebuilds don't)."""
    if fact.cause == "batch" and fact.game_ids:
        request_detection()


subscribe(RatingsChanged, on_ratings_changed)
