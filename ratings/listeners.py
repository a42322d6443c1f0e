"""What ratings hear from the core (``infra/announcements.py``), subscribed once by ``RatingsConfig.ready``.

Every app keeps its listeners in its ``listeners.py``
(docs/architecture.md#announcements-and-hand-offs).
"""

from __future__ import annotations

from infra.announcements import GamesRecorded, subscribe
from ratings.tasks import request_rating


def wake_raters(fact: GamesRecorded) -> None:
    """Recorded games wake their titles' Elo stage; a lost message is caught by ``sweep_pending``."""
    request_rating(fact.titles)


subscribe(GamesRecorded, wake_raters)
