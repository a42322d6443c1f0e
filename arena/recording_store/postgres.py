"""The recording store on PostgreSQL: statements fed by one JSON document, a single game in one round trip.

The JSON document is one parameter that the server parses, which costs the web process far less than adapting a
parameter (or an array) per value. Two shapes, built from the same pieces:

- A single game is one statement (data-modifying CTEs): it takes the table's advisory lock, locks the players it
  finds, creates the missing ones and writes the game and its seats; in autocommit it is its own transaction,
  one round trip. Its status is decided in Python beforehand from the statuses assumed (everyone active, nearly
  always true), and the statement writes the game only if the statuses it locked are those and every player has
  a row it can see; otherwise it writes no game and returns what it saw, and the game goes round again with that
  (a banned player at the table, a ban committed a moment ago, a player another request created after this
  statement's snapshot, which a later statement sees).
- A batch is one transaction of two statements, whatever its size: the first takes the tables' advisory locks,
  locks the players it finds and creates the missing ones, and returns them with their statuses (and a third,
  rare, statement locks the players other requests created meanwhile); Python decides each game's status from
  those statuses, locked until the commit; the second writes the games and seats. A batch never runs twice, so a
  banned player's game or a player shared with a concurrent batch costs nothing more.

Either way the rule lives in Python and the SQL stores the status it is given; ids follow the given order.

Locks, and why no deadlock with the rating batches (whose foreign-key checks take FOR KEY SHARE on players):

- Existing players are locked FOR SHARE (in id order), never FOR UPDATE and never rewritten: FOR SHARE lets
  KEY SHARE lockers (the rating batches, other recordings' seats) through, and two recordings share it, so no
  player row lock of recording ever waits for a rating batch or the other way round. It does make a ban (an
  UPDATE of the status, FOR NO KEY UPDATE) wait for the game's commit, or the game see the committed ban: that
  is what makes the status decided from it race-free. Missing players are inserted with ON CONFLICT DO NOTHING,
  in handle order, in one statement per call, so two calls creating the same players wait in one order.
- Tables are serialised by transaction-scoped advisory locks taken first, in one sorted order, so two requests
  carrying the same tables (in any order) never hold one each and wait for the other.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson
from django.db import transaction

from arena.models import Game, Player, Seat
from arena.recording_store import GameRow, GamesWritten, SeatRow, StatusRule
from infra.db import StaleRead, pg_cursor

PLAYER, GAME, SEAT = Player._meta.db_table, Game._meta.db_table, Seat._meta.db_table
NEW_PLAYER_STATUS = Player._meta.get_field("status").default
# A single game goes round again only when what the statement saw differs from what the previous round assumed,
# which takes a ban or an account creation committed in the moment between two rounds: more than a few is a
# stampede, and the caller runs the whole call again.
MAX_ROUNDS = 4

_GAME_COLUMNS = (
    "ord int4, t text, ti text, v jsonb, r bool, f timestamptz, d jsonb, s text, rs int2, cs int2, "
    "w jsonb, sip bool, fp text"
)
_SEAT_COLUMNS = "pos int2, sc int4, q bool, te text, side int2, pl int2, f jsonb, ip text, dev text"


def _inputs(games: str, seats: str) -> str:
    return f"""WITH doc AS (SELECT %s::jsonb AS j),
gi AS (SELECT x.* FROM doc, jsonb_to_recordset(doc.j -> 'games') AS x({games})),
si AS (SELECT y.* FROM doc, jsonb_to_recordset(doc.j -> 'seats') AS y({seats}))"""


# Table locks, the tables already stored (skipped, new players included), the players locked and created.
#
# Every lookup is a LATERAL probe by a unique key, one per table or handle of the document, each a subquery that
# cannot be flattened (LIMIT, FOR SHARE), so the only plan is a nested loop of index probes whatever the
# statistics say. Written as ``key = ANY(array)``, a plan prepared on a young or never-analysed database (this
# machine's PostgreSQL runs without autovacuum) scanned every player, or every game of the server, and kept doing
# so as the tables grew: 6 ms a game after 20,000 games instead of 1 ms (bench.recording_bench).
_PLAYERS = f""",
locks AS (
    SELECT count(pg_advisory_xact_lock(k)) AS n FROM (
        SELECT hashtextextended((doc.j ->> 'server') || ':' || gi.t, 0) AS k FROM doc, gi ORDER BY 1
    ) AS keys
),
stored AS (
    SELECT gi.t AS table_id FROM doc, gi CROSS JOIN LATERAL (
        SELECT 1 FROM {GAME} g WHERE g.server_id = (doc.j ->> 'server')::int8 AND g.table_id = gi.t LIMIT 1) hit
),
todo AS (SELECT gi.t FROM gi, locks WHERE locks.n >= 0 AND gi.t NOT IN (SELECT table_id FROM stored)),
hs AS (SELECT DISTINCT si.h FROM si JOIN todo ON todo.t = si.t),
found AS (
    SELECT p.id FROM hs CROSS JOIN LATERAL (SELECT id FROM {PLAYER} WHERE handle = hs.h LIMIT 1) p
),
locked AS (
    SELECT p.id, p.handle, p.status FROM (SELECT id FROM found ORDER BY id) f
    CROSS JOIN LATERAL (SELECT id, handle, status FROM {PLAYER} WHERE id = f.id FOR SHARE) p
),
fresh AS (
    INSERT INTO {PLAYER} (handle, status, created_at)
    SELECT hs.h, %s, now() FROM hs WHERE hs.h NOT IN (SELECT handle FROM locked) ORDER BY 1
    ON CONFLICT (handle) DO NOTHING
    RETURNING id, handle, status
),
known AS (SELECT id, handle, status FROM locked UNION ALL SELECT id, handle, status FROM fresh)"""


def _games(source: str, seats: str, player_id: str) -> str:
    """The games (from ``source``, in order) and their seats (``seats`` joined to g), each seat's player
    ``player_id``."""
    return f""",
g AS (
    INSERT INTO {GAME} (server_id, table_id, title, variant, rated, finished_at, accepted_at, details, status,
                        recommended_sides, coop_score, warnings, same_ip, fingerprint)
    SELECT (doc.j ->> 'server')::int8, gi.t, gi.ti, gi.v, gi.r, gi.f, now(), gi.d, gi.s, gi.rs, gi.cs, gi.w,
           gi.sip, gi.fp
    FROM {source} ORDER BY gi.ord
    ON CONFLICT (server_id, table_id) DO NOTHING
    RETURNING id, table_id, status
),
seats AS (
    INSERT INTO {SEAT} (game_id, player_id, position, score, quit, team, side, place, fields, ip_hash,
                        device_hash)
    SELECT g.id, {player_id}, si.pos, si.sc, si.q, si.te, si.side, si.pl, si.f, si.ip, si.dev
    FROM {seats}
)"""


# A single game: written only if nothing held it back (a seat whose player it cannot see, or whose status is not
# the one assumed); then answers (table, id, status), or else (table, NULL, handle, status seen) per seat.
_SINGLE_SQL = (
    _inputs(_GAME_COLUMNS, f"t text, h text, ps text, {_SEAT_COLUMNS}")
    + _PLAYERS
    + """,
held AS (
    SELECT todo.t FROM todo WHERE EXISTS (
        SELECT 1 FROM si LEFT JOIN known k ON k.handle = si.h
        WHERE si.t = todo.t AND (k.id IS NULL OR k.status IS DISTINCT FROM si.ps))
)"""
    + _games(
        "gi JOIN todo ON todo.t = gi.t, doc WHERE NOT EXISTS (SELECT 1 FROM held)",
        "si JOIN g ON g.table_id = si.t JOIN known k ON k.handle = si.h",
        "k.id",
    )
    + """
SELECT g.table_id, g.id, NULL, g.status FROM g
UNION ALL
SELECT si.t, NULL, si.h, k.status FROM si JOIN held ON held.t = si.t LEFT JOIN known k ON k.handle = si.h
"""
)

# A batch, first statement: the players as (handle, id, status), then the tables already stored as (NULL, NULL, t).
_BATCH_PLAYERS_SQL = (
    _inputs("t text", "t text, h text")
    + _PLAYERS
    + """
SELECT handle, id, status FROM known
UNION ALL
SELECT NULL, NULL, table_id FROM stored
"""
)

# The players created by other requests meanwhile, locked like the others.
_BATCH_LATECOMERS_SQL = f"SELECT handle, id, status FROM {PLAYER} WHERE handle = ANY(%s) ORDER BY id FOR SHARE"

# A batch, second statement: the games, with the statuses decided and the players' ids.
_BATCH_GAMES_SQL = (
    _inputs(_GAME_COLUMNS, f"t text, pid int8, {_SEAT_COLUMNS}")
    + _games("gi, doc", "si JOIN g ON g.table_id = si.t", "si.pid")
    + """
SELECT table_id, id, status FROM g
"""
)


class RecordingPostgresStore:
    def games_write(self, *, server_id: int, rows: Sequence[GameRow], status_of: StatusRule) -> dict[str, GamesWritten]:
        if len(rows) == 1:
            return _single(server_id, rows[0], status_of)
        with transaction.atomic():
            return _batch(server_id, rows, status_of)


def _single(server_id: int, row: GameRow, status_of: StatusRule) -> dict[str, GamesWritten]:
    assumed: Mapping[str, str] = {s.handle: NEW_PLAYER_STATUS for s in row.seats}
    for _ in range(MAX_ROUNDS):

        def seat_player(seat: SeatRow, assumed: Mapping[str, str] = assumed) -> dict[str, Any]:
            return {"h": seat.handle, "ps": assumed[seat.handle]}

        doc = _doc(server_id, [row], [status_of(row, assumed)], seat_player)
        written: dict[str, GamesWritten] = {}
        seen: dict[str, str] = {}
        for table_id, game_id, handle, status in _run(_SINGLE_SQL, doc, NEW_PLAYER_STATUS):
            if game_id is not None:
                written[table_id] = GamesWritten(game_id, status)
            else:  # held back; a player without a visible row was just created by another request, so is new
                seen[handle] = status or NEW_PLAYER_STATUS
        if not seen:
            return written
        assumed = seen  # nothing was written: the game goes round again, with what was seen
    raise StaleRead(f"the players of table {row.table_id!r} kept changing over {MAX_ROUNDS} rounds")


def _batch(server_id: int, rows: Sequence[GameRow], status_of: StatusRule) -> dict[str, GamesWritten]:
    players: dict[str, tuple[int, str]] = {}
    stored: set[str] = set()
    doc = _doc(server_id, rows, None, lambda seat: {"h": seat.handle})
    for handle, player_id, status in _run(_BATCH_PLAYERS_SQL, doc, NEW_PLAYER_STATUS):
        if handle is None:
            stored.add(status)
        else:
            players[handle] = (player_id, status)
    todo = [r for r in rows if r.table_id not in stored]
    if not todo:
        return {}
    needed = {s.handle for r in todo for s in r.seats}
    if latecomers := sorted(needed - players.keys()):
        # Created by requests that committed while the first statement ran, after its snapshot: now visible.
        players.update(
            (handle, (player_id, status))
            for handle, player_id, status in _run(_BATCH_LATECOMERS_SQL, latecomers, prepare=False)
        )
        if needed - players.keys():
            raise StaleRead("a player created by a concurrent request is gone")
    statuses = [status_of(r, {s.handle: players[s.handle][1] for s in r.seats}) for r in todo]
    doc = _doc(server_id, todo, statuses, lambda seat: {"pid": players[seat.handle][0]})
    answer = _run(_BATCH_GAMES_SQL, doc)
    return {table_id: GamesWritten(game_id, status) for table_id, game_id, status in answer}


def _doc(
    server_id: int,
    rows: Sequence[GameRow],
    statuses: Sequence[str] | None,
    seat_player: Callable[[SeatRow], dict[str, Any]],
) -> str:
    """The statement's one parameter; without ``statuses``, only what the players' statement reads. Each seat
    names its player as ``seat_player`` says (a handle and its assumed status, or the player's id)."""
    if statuses is None:
        games: list[dict[str, Any]] = [{"t": r.table_id} for r in rows]
        seats = [{"t": r.table_id, **seat_player(s)} for r in rows for s in r.seats]
    else:
        games = [
            {
                "ord": i,
                "t": r.table_id,
                "ti": r.title,
                "v": r.variant,
                "r": r.rated,
                "f": r.finished_at.isoformat(),
                "d": r.details,
                "s": status,
                "rs": r.recommended_sides,
                "cs": r.coop_score,
                "w": r.warnings,
                "sip": r.same_ip,
                "fp": r.fingerprint,
            }
            for i, (r, status) in enumerate(zip(rows, statuses, strict=True))
        ]
        seats = [
            {
                "t": r.table_id,
                **seat_player(s),
                "pos": s.position,
                "sc": s.score,
                "q": s.quit,
                "te": s.team,
                "side": s.side,
                "pl": s.place,
                "f": s.fields,
                "ip": s.ip_hash,
                "dev": s.device_hash,
            }
            for r in rows
            for s in r.seats
        ]
    return _json({"server": server_id, "games": games, "seats": seats})


def _json(document: dict[str, Any]) -> str:
    """orjson writes a batch's document in a tenth of the standard library's time; it refuses integers beyond 64
    bits, which a game's details may carry and PostgreSQL's jsonb keeps, so those go the slow way."""
    try:
        return orjson.dumps(document).decode()
    except TypeError:
        return json.dumps(document, separators=(",", ":"))


def _run(sql: str, *params: Any, prepare: bool = True) -> list[tuple[Any, ...]]:
    """Prepared once per connection: planning these statements costs more than running them (about 1 ms against
    0.4 ms for a single game). That is safe because every lookup is a probe by unique key (see ``_PLAYERS``),
    whose plan does not depend on the tables' statistics. The latecomers' lookup, rare, is planned each time."""
    with pg_cursor(binary=False) as cur:
        cur.execute(sql, list(params), prepare=prepare)
        rows: list[tuple[Any, ...]] = cur.fetchall()
        return rows
