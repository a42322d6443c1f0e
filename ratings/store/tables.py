"""Names both rating stores write to: the tables and the history columns, in ``ChangeRow`` order."""

from __future__ import annotations

from arena.models import Game, Seat
from ratings.models import Rating, RatingChange, Reputation

GAME = Game._meta.db_table
SEAT = Seat._meta.db_table
RATING = Rating._meta.db_table
CHANGE = RatingChange._meta.db_table
REPUTATION = Reputation._meta.db_table
PENDING: str = Game.Status.PENDING
RATED: str = Game.Status.RATED
# Columns of a history row, in ChangeRow order plus the title and the write time, with their PostgreSQL types.
CHANGE_COLUMNS = (
    "seq",
    "player_id",
    "game_id",
    "kind",
    "before",
    "after",
    "delta",
    "k",
    "games_before",
    "place",
    "finished_at",
    "opponent",
    "title",
    "created_at",
)
CHANGE_TYPES = (
    "int8",
    "int8",
    "int8",
    "varchar",
    "float8",
    "float8",
    "float8",
    "int2",
    "int4",
    "int2",
    "timestamptz",
    "float8",
    "varchar",
    "timestamptz",
)
