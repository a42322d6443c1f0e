"""The rating store on PostgreSQL: one statement per table per batch, through server-binding binary cursors.

Reads use ``= ANY(array)`` (one parameter instead of thousands, no text parsing of timestamps and doubles).
History rows go in with a binary COPY, the fastest way in; updates with ``UPDATE ... FROM unnest(arrays)``.
Django's default client-side binding would render every array as a quoted literal, which costs more than the
write itself, hence ``infra.db.pg_cursor`` on Django's own connection (so inside Django's transaction).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from psycopg import pq
from psycopg.adapt import Buffer, Dumper

from infra.db import columns, pg_cursor
from ratings.plan import ChangeRow, PlayerState, RatedGame, RatedSeat, SkillState
from ratings.reputation import FINISHED, KEEP, QUIT
from ratings.skill import DEFAULT_SKILL, Skill
from ratings.store import CooldownUpdate, EloUpdate, NewRating, ReputationRow, SkillUpdate
from ratings.store.arrays import ARRAY_OIDS, pack
from ratings.store.tables import CHANGE, CHANGE_COLUMNS, CHANGE_TYPES, GAME, PENDING, RATED, RATING, REPUTATION, SEAT

_GAME_COLUMNS = "id, recommended_sides, coop_score, finished_at"
# Between two players' outcome strings in the reputation upsert's one text parameter: no outcome letter is one.
_OUTCOMES_SEPARATOR = ","
assert _OUTCOMES_SEPARATOR not in FINISHED + QUIT


def _packed_types(kind: str) -> tuple[type[bytes], type[Dumper]]:
    """A bytes type for an array of ``kind`` already in binary form, and the dumper that sends it as is, typed."""

    class Packed(bytes):
        pass

    class PackedDumper(Dumper):
        format = pq.Format.BINARY
        oid = ARRAY_OIDS[kind]

        def dump(self, obj: Any) -> Buffer | None:
            return obj  # type: ignore[no-any-return]

    return Packed, PackedDumper


_PACKED = {kind: _packed_types(kind) for kind in ARRAY_OIDS}


def _array(kind: str, values: Sequence[Any]) -> Any:
    """An array parameter of ``kind`` (see ``ratings.store.arrays``); a column holding a NULL goes to psycopg's own
    list dumper, which handles it (the packer does not)."""
    values = list(values)
    if None in values:
        return values
    return _PACKED[kind][0](pack(kind, values))


@contextmanager
def _cursor() -> Iterator[Any]:
    """``pg_cursor`` that also sends ``_array`` parameters."""
    with pg_cursor() as cur:
        for packed, dumper in _PACKED.values():
            cur.adapters.register_dumper(packed, dumper)
        yield cur


def _deck(deck_key: str | None) -> tuple[str, list[str]]:
    """The select-list item and parameters that read a cooperative game's deck (NULL for a competitive one)."""
    return ("variant->>%b::text", [deck_key]) if deck_key is not None else ("NULL::text", [])


def _games_read(select: str, order: str, params: list[Any]) -> tuple[list[RatedGame], list[tuple[Any, ...]]]:
    """The games ``select`` picks (its columns: ``_GAME_COLUMNS``, the deck, then any extras), each with its seats
    in position order, in ``order``; returns the RatedGames and each game's extras.

    One statement: each chosen game's seats are read by the seat's (game, player) index, rather than by a
    second statement over an array of 2,000 game ids, which cost the batch a round trip and let the planner
    scan the whole seat table (it did, on the bench). The lateral subquery's ``OFFSET 0`` keeps it from being
    flattened into a plain join, which the planner hashed over a scan of every seat too: probing the index
    once per game is the plan at every table size (docs/testing.md, "Workers and pools")."""
    with pg_cursor() as cur:
        cur.execute(
            f"SELECT g.*, s.player_id, s.side, s.place, s.quit FROM ({select}) AS g "
            f"LEFT JOIN LATERAL (SELECT player_id, side, place, quit, position FROM {SEAT} "
            "WHERE game_id = g.id OFFSET 0) AS s ON true "
            f"ORDER BY g.{order}, s.position",
            params,
        )
        rows = cur.fetchall()
    games: list[RatedGame] = []
    extras: list[tuple[Any, ...]] = []
    last = None
    seats: list[RatedSeat] = []
    for row in rows:
        if row[0] != last:
            last = row[0]
            seats = []
            games.append(RatedGame(row[0], row[1], row[2], row[3], row[4], seats))
            extras.append(row[5:-4])
        if row[-4] is not None:  # a game without seats (never recorded so) keeps an empty list, as it always did
            seats.append(row[-4:])
    return games, extras


class BatchPostgresStore:
    def pending_games(self, *, title: str, limit: int, deck_key: str | None) -> list[RatedGame]:
        deck, deck_params = _deck(deck_key)
        games, _ = _games_read(
            f"SELECT {_GAME_COLUMNS}, {deck} AS deck FROM {GAME} WHERE title = %b AND status = %b ORDER BY id LIMIT %b",
            "id",
            [*deck_params, title, PENDING, limit],
        )
        return games

    def rated_games(
        self, *, title: str, after_seq: int | None, limit: int, deck_key: str | None
    ) -> tuple[list[RatedGame], list[int]]:
        deck, deck_params = _deck(deck_key)
        games, extras = _games_read(
            f"SELECT {_GAME_COLUMNS}, {deck} AS deck, rating_seq FROM {GAME} "
            "WHERE title = %b AND status = %b AND rating_seq > %b ORDER BY rating_seq LIMIT %b",
            "rating_seq",
            [*deck_params, title, RATED, after_seq or 0, limit],
        )
        return games, [extra[0] for extra in extras]

    def elo_states(self, *, title: str, player_ids: Collection[int]) -> dict[int, PlayerState]:
        with _cursor() as cur:
            cur.execute(
                f"SELECT id, player_id, elo, games FROM {RATING} WHERE title = %b "
                "AND player_id = ANY(%b::int8[]) ORDER BY id FOR UPDATE",
                [title, _array("int8", list(player_ids))],
            )
            rows = cur.fetchall()
        return {player_id: PlayerState(rating_id, elo, games) for rating_id, player_id, elo, games in rows}

    def skill_states(self, *, title: str, player_ids: Collection[int]) -> dict[int, SkillState]:
        with _cursor() as cur:
            cur.execute(
                f"SELECT id, player_id, ts_mu, ts_sigma FROM {RATING} WHERE title = %b AND player_id = ANY(%b::int8[])",
                [title, _array("int8", list(player_ids))],
            )
            rows = cur.fetchall()
        return {
            player_id: SkillState(rating_id, DEFAULT_SKILL if mu is None or sigma is None else Skill(mu, sigma))
            for rating_id, player_id, mu, sigma in rows
        }

    def insert_ratings(self, *, title: str, rows: Sequence[NewRating]) -> None:
        if not rows:
            return
        kinds = ("int8", "float8", "int4", "timestamptz", "float8", "float8")
        with _cursor() as cur:
            cur.execute(
                f"INSERT INTO {RATING} (player_id, title, elo, games, last_game_at, ts_mu, ts_sigma) "
                "SELECT v.player_id, %b, v.elo, v.games, v.last_game_at, v.ts_mu, v.ts_sigma "
                "FROM unnest(%b::int8[], %b::float8[], %b::int4[], %b::timestamptz[], %b::float8[], %b::float8[]) "
                "AS v(player_id, elo, games, last_game_at, ts_mu, ts_sigma)",
                [title, *(_array(kind, column) for kind, column in zip(kinds, columns(rows), strict=True))],
            )

    def update_elo(self, *, rows: Sequence[EloUpdate]) -> None:
        if not rows:
            return
        ids, elos, games, last = columns(rows)
        with _cursor() as cur:
            cur.execute(
                f"UPDATE {RATING} AS r SET elo = v.elo, games = v.games, "
                "last_game_at = GREATEST(r.last_game_at, v.last_game_at) "
                "FROM unnest(%b::int8[], %b::float8[], %b::int4[], %b::timestamptz[]) "
                "AS v(id, elo, games, last_game_at) WHERE r.id = v.id",
                [_array("int8", ids), _array("float8", elos), _array("int4", games), _array("timestamptz", last)],
            )

    def update_skill(self, *, rows: Sequence[SkillUpdate]) -> None:
        if not rows:
            return
        ids, mus, sigmas = columns(rows)
        with _cursor() as cur:
            cur.execute(
                f"UPDATE {RATING} AS r SET ts_mu = v.mu, ts_sigma = v.sigma "
                "FROM unnest(%b::int8[], %b::float8[], %b::float8[]) AS v(id, mu, sigma) WHERE r.id = v.id",
                [_array("int8", ids), _array("float8", mus), _array("float8", sigmas)],
            )

    def lock_ratings(self, *, ids: Sequence[int]) -> None:
        if not ids:
            return
        with _cursor() as cur:
            cur.execute(
                f"SELECT id FROM {RATING} WHERE id = ANY(%b::int8[]) ORDER BY id FOR UPDATE", [_array("int8", ids)]
            )

    def insert_changes(self, *, title: str, rows: Sequence[ChangeRow], created_at: datetime) -> None:
        if not rows:
            return
        with (
            pg_cursor() as cur,
            cur.copy(f"COPY {CHANGE} ({', '.join(CHANGE_COLUMNS)}) FROM STDIN (FORMAT BINARY)") as copy,
        ):
            copy.set_types(CHANGE_TYPES)
            write = copy.write_row
            tail = (title, created_at)
            for row in rows:
                write(row + tail)

    def mark_games_rated(self, *, rows: Sequence[tuple[int, int]]) -> None:
        if not rows:
            return
        ids, seqs = columns(rows)
        with _cursor() as cur:
            cur.execute(
                f"UPDATE {GAME} AS g SET status = %b, rating_seq = v.seq "
                "FROM unnest(%b::int8[], %b::int8[]) AS v(id, seq) WHERE g.id = v.id",
                [RATED, _array("int8", ids), _array("int8", seqs)],
            )

    def append_outcomes(
        self, *, rows: Sequence[tuple[int, str]], returning: Collection[int]
    ) -> dict[int, ReputationRow]:
        if not rows:
            return {}
        # One upsert for everyone: it concatenates on the server, so concurrent batches of other titles append to
        # the latest committed string (ON CONFLICT re-reads the row it waited for); rows are taken in player order.
        # No RETURNING: a data-modifying CTE returning every appended row (to keep the batch's few quitters) cost
        # the upsert a tenth to a sixth of its time on the bench; the quitters' rows are read after it, by key, and are
        # already locked by this transaction, so they are the rows just written.
        # The outcomes travel as one text, split by the server: psycopg dumps a list of 4,000 strings element by
        # element in Python (7 to 10 ms a batch, against 0.03 ms for the join); outcome letters hold no comma.
        with _cursor() as cur:
            cur.execute(
                f"INSERT INTO {REPUTATION} AS r (player_id, recent, cooldown_seconds) "
                f"SELECT player_id, right(added, {KEEP}), 0 "
                f"FROM unnest(%b::int8[], string_to_array(%b::text, '{_OUTCOMES_SEPARATOR}')) AS v(player_id, added) "
                "ORDER BY player_id "
                f"ON CONFLICT (player_id) DO UPDATE SET recent = right(r.recent || EXCLUDED.recent, {KEEP})",
                [_array("int8", [r[0] for r in rows]), _OUTCOMES_SEPARATOR.join([r[1] for r in rows])],
            )
            if not returning:
                return {}
            cur.execute(
                f"SELECT player_id, recent, cooldown_until, cooldown_seconds, cooldown_started_at, "
                f"last_quit_at FROM {REPUTATION} WHERE player_id = ANY(%b::int8[])",
                [list(returning)],
            )
            return {row[0]: row[1:] for row in cur.fetchall()}

    def update_cooldowns(self, *, rows: Sequence[CooldownUpdate]) -> None:
        if not rows:
            return
        with pg_cursor() as cur:
            cur.execute(
                f"UPDATE {REPUTATION} AS r SET cooldown_until = v.until, cooldown_seconds = v.seconds, "
                "cooldown_started_at = v.started, last_quit_at = v.quit "
                "FROM unnest(%b::int8[], %b::timestamptz[], %b::int4[], %b::timestamptz[], %b::timestamptz[]) "
                "AS v(id, until, seconds, started, quit) WHERE r.player_id = v.id",
                columns(rows),
            )
