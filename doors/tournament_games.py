"""A game recorded for a tournament table (docs/tournaments.md, "Rounds, results and deadlines").

The normal ``POST /api/v1/games/`` body may name the table it was pushed, ``"tournament_table": <id>``. The core
knows nothing of tournaments (a lower layer), so this top-floor door takes the field off before the core parses
the body, checks the table (this server's, its round open, the same title and players), then records the game and
the table's result in one transaction: a refused link records nothing, a resent body answers as a resend.
The batch endpoint takes the field per game too (``games_with_tables_record``): each game naming a table is its
own transaction and its own answer inside the batch, as if sent alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from arena.games.results import RuleViolation
from arena.models import GameServer
from arena.recording import GameInput, Outcome, Recorded, game_record, games_record
from infra.db import retry_transient
from infra.errors import ArenaError
from tournaments.rounds import table_for_game, table_game_check, table_result_record

FIELD = "tournament_table"


def tournament_table_take(body: Any) -> tuple[Any, object | None]:
    """The body without ``tournament_table``, and its value (None when the game names no table)."""
    if isinstance(body, dict) and FIELD in body:
        return {key: value for key, value in body.items() if key != FIELD}, body[FIELD]
    return body, None


def tournament_game_record(*, server: GameServer, data: GameInput, table_ref: object) -> Recorded:
    """Record ``data`` as the result of the tournament table ``table_ref`` (refusals before anything is written)."""
    table = table_for_game(server_id=server.pk, table_id=table_ref)
    table_game_check(
        table=table, title=data.title, handles=[p.player for p in data.players], server_table_id=data.table_id
    )

    def work() -> Recorded:
        with transaction.atomic():
            recorded = game_record(server=server, data=data)
            table_result_record(table_id=table.pk, game=recorded.game)
            return recorded

    return retry_transient(work)


def games_with_tables_record(
    *, server: GameServer, games: Sequence[GameInput | ArenaError], tables: Sequence[object | None]
) -> list[Outcome]:
    """A batch's games in order, ``tables[i]`` the table game ``i`` names (None: none). The games naming no table
    are recorded together as a batch always was (``games_record``); then each game naming a table is recorded
    alone, in its own transaction, with what the single endpoint would answer it (a refusal of its link is that
    game's 4xx, never the batch's), so one tournament game refused leaves the others recorded."""
    outcomes: list[Outcome | None] = [None] * len(games)
    plain = [i for i, data in enumerate(games) if tables[i] is None or isinstance(data, ArenaError)]
    if plain:
        for i, outcome in zip(plain, games_record(server=server, games=[games[i] for i in plain]), strict=True):
            outcomes[i] = outcome
    for i, data in enumerate(games):
        if outcomes[i] is not None or isinstance(data, ArenaError):
            continue
        try:
            outcomes[i] = tournament_game_record(server=server, data=data, table_ref=tables[i])
        except (ArenaError, RuleViolation) as refusal:
            outcomes[i] = refusal
    return outcomes  # type: ignore[return-value]  # every index was filled by one of the two passes
