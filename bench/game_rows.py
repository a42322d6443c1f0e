"""A pending game row as the benches COPY it into ``arena_game``: the columns and their values in one place, so a
column the core adds or drops is changed here once (rating_games and detection_bench both write games this way)."""

from __future__ import annotations

from datetime import datetime

PENDING_GAMES_COPY = (
    "COPY arena_game (id, server_id, table_id, title, variant, rated, finished_at, "
    "accepted_at, details, status, recommended_sides, warnings, same_ip, fingerprint) FROM STDIN"
)


def pending_game(game_id: int, server_id: int, table_id: str, title: str, finished: datetime) -> tuple:
    """A rated four-seat game, finished and accepted at ``finished``, waiting for the rating stages."""
    return (
        game_id,
        server_id,
        table_id,
        title,
        "{}",
        True,
        finished,
        finished,
        "{}",
        "pending",
        4,
        "[]",
        False,
        "bench",
    )
