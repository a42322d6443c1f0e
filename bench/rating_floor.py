"""The raw-SQL floor of the rating bench: what the disk and the server cost for the rows one Elo batch writes.

The stage is judged against it (bench/rating_bench.py: at least 0.8x the floor), so it must be a floor a real
batch could reach: the batch's own values, written the cheapest way plain psycopg knows, with no reads and no logic.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg
from django.db import connection, transaction

from bench.rating_games import EPOCH, FLOOR_TITLE
from ratings.config import elo_config
from ratings.plan import EloPlan, RatedGame
from ratings.store.tables import CHANGE_TYPES


class Floor:
    """The writes of every Elo batch, on a twin copy of the games (title "floor"): COPY history, INSERT new ratings,
    UPDATE ratings and games FROM unnest; no reads, no logic.

    The values are the batch's real ones, computed beforehand (outside the timing) by the same plan over the same
    games in the same batches. Constant dummy values (every updated rating 1520.25 with 7 games, as the floor
    wrote until issue 24) put each batch's entries of the ratings' indexes (``rating_by_title_elo``,
    ``rating_leaderboard``) side by side in one place of each B-tree: 15 % less server CPU for the same UPDATE,
    a floor no real batch can reach."""

    def __init__(self, layout: list, batch: int, first_id: int):
        self.prepared = []
        known: set[int] = set()
        plan = EloPlan(states={}, config=elo_config(), hanabi_rules=None)
        seq = 0
        created = datetime.now(UTC)
        tail = (FLOOR_TITLE, created)
        for start in range(0, len(layout), batch):
            first_change = len(plan.changes)
            players: set[int] = set()
            game_ids, seqs = [], []
            for offset, seats in enumerate(layout[start : start + batch]):
                game_id = first_id + start + offset
                seq += 1
                game_ids.append(game_id)
                seqs.append(seq)
                finished = EPOCH + timedelta(seconds=start + offset)
                rated = [(player_id, side, place, False) for player_id, side, place in seats]
                plan.apply_game(RatedGame(game_id, 4, None, finished, None, rated), seq)
                players.update(seat[0] for seat in seats)
            history = [row + tail for row in plan.changes[first_change:]]
            new, old = sorted(players - known), sorted(players & known)
            known |= players
            states = plan.states
            written = [
                [
                    list(ids),
                    [states[p].elo for p in ids],
                    [states[p].games for p in ids],
                    [states[p].last_game_at for p in ids],
                ]
                for ids in (new, old)
            ]
            self.prepared.append((history, written[0], written[1], game_ids, seqs, seq))
        # The best plain psycopg does: server-side binding, binary COPY and binary arrays.
        connection.ensure_connection()
        self.cur = psycopg.Cursor(connection.connection)
        self.cur.format = psycopg.pq.Format.BINARY

    def run(self, index: int) -> None:
        history, new, old, game_ids, seqs, last_seq = self.prepared[index]
        cur = self.cur
        with transaction.atomic():
            with cur.copy(
                "COPY ratings_ratingchange (seq, player_id, game_id, kind, before, after, delta, k, "
                "games_before, place, finished_at, opponent, title, created_at) FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.set_types(CHANGE_TYPES)
                for row in history:
                    copy.write_row(row)
            cur.execute(
                "INSERT INTO ratings_rating (player_id, title, elo, games, last_game_at) "
                "SELECT v.p, %b, v.elo, v.games, v.at FROM unnest(%b::int8[], %b::float8[], %b::int4[], "
                "%b::timestamptz[]) AS v(p, elo, games, at)",
                [FLOOR_TITLE, *new],
            )
            cur.execute(
                "UPDATE ratings_rating AS r SET elo = v.elo, games = v.games, "
                "last_game_at = GREATEST(r.last_game_at, v.at) FROM unnest(%b::int8[], %b::float8[], "
                "%b::int4[], %b::timestamptz[]) AS v(p, elo, games, at) WHERE r.player_id = v.p AND r.title = %b",
                [*old, FLOOR_TITLE],
            )
            cur.execute(
                "UPDATE arena_game AS g SET status = 'rated', rating_seq = v.seq "
                "FROM unnest(%b::int8[], %b::int8[]) AS v(id, seq) WHERE g.id = v.id",
                [game_ids, seqs],
            )
            cur.execute("UPDATE ratings_ratingstage SET last_seq = %b WHERE title = %b", [last_seq, FLOOR_TITLE])


def drop_floor() -> None:
    """The floor's twin games and rows are no game's: gone once measured, so ``rebuild_ratings --check`` over
    every title of the bench database checks real titles only."""
    with connection.cursor() as cur:
        for table in ("ratings_ratingchange", "ratings_rating", "ratings_ratingstage"):
            cur.execute(f"DELETE FROM {table} WHERE title = %s", [FLOOR_TITLE])
        cur.execute(
            "DELETE FROM arena_seat WHERE game_id IN (SELECT id FROM arena_game WHERE title = %s)", [FLOOR_TITLE]
        )
        cur.execute("DELETE FROM arena_game WHERE title = %s", [FLOOR_TITLE])
