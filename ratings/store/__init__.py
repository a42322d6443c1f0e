"""Where the rating stages read and write: one interface, one backend per database, chosen in one place.

A batch reads a few thousand games and writes a few thousand rows, so the stages talk to the database through a
handful of bulk statements rather than the ORM (which builds a model instance per row and, for
``bulk_update``, a CASE per column per row). The statements differ by database, the meaning does not:

- :mod:`ratings.store.postgres`: server-binding binary cursors, ``= ANY(array)`` reads, history in with a
  binary COPY, updates with ``UPDATE ... FROM unnest(arrays)``: one statement each, whatever the batch size.
- :mod:`ratings.store.portable`: the ORM's ``values_list`` and ``executemany``, for SQLite (embedded mode) and
  any other database Django speaks.

Both return the same Python values (aware UTC datetimes, floats, ints) and store floats exactly, so what the
planner computed is what the database holds, and a rebuild can compare bit for bit. Callers run every call
inside their transaction while holding the stage lock (``ratings.stages``).

``store()`` is the only place that looks at which database is connected.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from functools import cache
from typing import Protocol

from django.db import connection

from ratings.plan import ChangeRow, PlayerState, RatedGame, SkillState

# A new Rating row: (player_id, elo, games, last_game_at, ts_mu, ts_sigma).
NewRating = tuple[int, float, int, "datetime | None", "float | None", "float | None"]
# An Elo update of an existing Rating row: (rating_id, elo, games, last_game_at).
EloUpdate = tuple[int, float, int, "datetime | None"]
# A TrueSkill update of an existing Rating row: (rating_id, mu, sigma).
SkillUpdate = tuple[int, float, float]
# A player's Reputation row as the stage reads it back: (recent, cooldown_until, cooldown_seconds,
# cooldown_started_at, last_quit_at).
ReputationRow = tuple[str, "datetime | None", int, "datetime | None", "datetime | None"]
# A cool-down written back: (player_id, cooldown_until, cooldown_seconds, cooldown_started_at, last_quit_at).
CooldownUpdate = tuple[int, "datetime | None", int, "datetime | None", "datetime | None"]


class RatingStore(Protocol):
    """The reads and writes of the rating stages; every method is one statement per table it touches.

    ``deck_key``: the variant key whose value a cooperative title's rating needs (Hanabi's deck), or None for a
    competitive title, whose games are read without their variant.
    """

    # Reads -----------------------------------------------------------------------------------------------------

    def pending_games(self, *, title: str, limit: int, deck_key: str | None) -> list[RatedGame]:
        """The title's first ``limit`` pending games in arrival (id) order, with their seats."""

    def rated_games(
        self, *, title: str, after_seq: int | None, limit: int, deck_key: str | None
    ) -> tuple[list[RatedGame], list[int]]:
        """A chunk of rated games in rating_seq order after ``after_seq``, and their seqs: the rebuild's replay,
        and the TrueSkill stage's next games (after its own ``last_seq``)."""

    def elo_states(self, *, title: str, player_ids: Collection[int]) -> dict[int, PlayerState]:
        """The players' Elo standings, their Rating rows locked FOR UPDATE in id order (see ``lock_ratings``)."""

    def skill_states(self, *, title: str, player_ids: Collection[int]) -> dict[int, SkillState]:
        """The players' TrueSkill beliefs, read without locks (only the TrueSkill stage writes them)."""

    # Writes ----------------------------------------------------------------------------------------------------

    def insert_ratings(self, *, title: str, rows: Sequence[NewRating]) -> None:
        """New Rating rows."""

    def update_elo(self, *, rows: Sequence[EloUpdate]) -> None:
        """Elo columns of existing Rating rows; the later of the stored and the given last_game_at wins."""

    def update_skill(self, *, rows: Sequence[SkillUpdate]) -> None:
        """TrueSkill columns of existing Rating rows; the Elo columns are left alone."""

    def lock_ratings(self, *, ids: Sequence[int]) -> None:
        """Lock Rating rows in id order before updating them.

        The Elo stage locks its rows in id order when it reads them; the TrueSkill stage taking its row locks in
        the same order means the two stages may wait for each other but never deadlock.
        """

    def insert_changes(self, *, title: str, rows: Sequence[ChangeRow], created_at: datetime) -> None:
        """History rows."""

    def mark_games_rated(self, *, rows: Sequence[tuple[int, int]]) -> None:
        """Games (id, rating_seq) -> status rated, with their place in the title's order."""

    def append_outcomes(
        self, *, rows: Sequence[tuple[int, str]], returning: Collection[int]
    ) -> dict[int, ReputationRow]:
        """Append each player's outcomes of this batch (``f``/``q``, oldest first) to their Reputation row, creating
        it when missing, keeping the last ``ratings.reputation.KEEP``; rows locked in player order. Returns the rows
        of the ``returning`` players after the append (the batch's quitters, whose cool-down the stage decides)."""

    def update_cooldowns(self, *, rows: Sequence[CooldownUpdate]) -> None:
        """The cool-down columns of Reputation rows the batch already locked."""


def store() -> RatingStore:
    """The backend for the connected database."""
    return _backend(connection.vendor)


@cache
def _backend(vendor: str) -> RatingStore:
    if vendor == "postgresql":
        from ratings.store.postgres import BatchPostgresStore

        return BatchPostgresStore()
    from ratings.store.portable import BatchPortableStore

    return BatchPortableStore()
