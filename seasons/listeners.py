"""What seasons hear from below (``infra/announcements.py``), subscribed once by ``SeasonsConfig.ready``.

A rating batch is folded into the open season by a worker (``seasons.tasks.follow``; in-process when embedded); a
rebuild (after a void) replays the season. A ban or an unban needs no write to the entries: the database's standings
leave banned players out at each read (``seasons/selectors.py``); the season's version moves so that its Redis copy
is rebuilt without them (``seasons/standings.py``).
"""

from __future__ import annotations

from infra.announcements import PlayerStatusChanged, RatingsChanged, subscribe
from seasons.standings import standings_changed
from seasons.tasks import follow, replay


def on_ratings_changed(fact: RatingsChanged) -> None:
    """A batch brings games to fold; a rebuild (a void) makes the season replay; a reset does not touch seasons
    (the season Elo is the season's own)."""
    if fact.cause == "batch" and fact.game_ids:
        follow.delay(fact.title, list(fact.game_ids))
    elif fact.cause == "rebuild":
        replay.delay(fact.title)


def on_player_status_changed(fact: PlayerStatusChanged) -> None:
    """A ban or an unban: the database's standings read the status at each read; the Redis copies of the seasons
    the player is in are made stale (their version moves) and rebuild at the next read."""
    standings_changed(player_id=fact.player_id)


subscribe(RatingsChanged, on_ratings_changed)
subscribe(PlayerStatusChanged, on_player_status_changed)
