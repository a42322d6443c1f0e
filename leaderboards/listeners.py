"""What the boards hear from below (``infra/announcements.py``), subscribed once by ``LeaderboardsConfig.ready``.

The boards follow the ratings and the players' status, both announced after their commit; every app keeps its
listeners in its ``listeners.py`` (docs/architecture.md#announcements-and-hand-offs).
"""

from __future__ import annotations

from infra.announcements import PlayerStatusChanged, RatingsChanged, subscribe
from leaderboards.board_mode import redis_board_titles
from leaderboards.services import board_sync
from ratings.models import Rating


def on_ratings_changed(fact: RatingsChanged) -> None:
    """A batch, a reset or a rebuild moved these players."""
    board_sync(title=fact.title, player_ids=fact.player_ids)


def on_player_status_changed(fact: PlayerStatusChanged) -> None:
    """A banned player leaves every board at once, an unbanned one returns."""
    boards = set(redis_board_titles())
    if not boards:
        return  # no Redis board to correct: the database board reads the status at each request
    titles = set(Rating.objects.filter(player_id=fact.player_id).values_list("title", flat=True))
    for title in sorted(titles & boards):
        board_sync(title=title, player_ids=[fact.player_id])


subscribe(RatingsChanged, on_ratings_changed)
subscribe(PlayerStatusChanged, on_player_status_changed)
