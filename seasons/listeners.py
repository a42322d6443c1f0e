"""What seasons hear from below (``infra/announcements.py``), subscribed once by ``SeasonsConfig.ready``.

A rating batch is folded into the open season by a worker (``seasons.tasks.follow``; in-process when embedded); a
rebuild (after a void) replays the season. Banned players need no write: the standings leave them out at each read
(``seasons/selectors.py``), so a ban or an unban shows at once.
"""

from __future__ import annotations

from infra.announcements import RatingsChanged, subscribe
from seasons.tasks import follow, replay


def on_ratings_changed(fact: RatingsChanged) -> None:
    """A batch brings games to fold; a rebuild (a void) makes the season replay; a reset does not touch seasons
    (the season Elo is the season's own)."""
    if fact.cause == "batch" and fact.game_ids:
        follow.delay(fact.title, list(fact.game_ids))
    elif fact.cause == "rebuild":
        replay.delay(fact.title)


subscribe(RatingsChanged, on_ratings_changed)
