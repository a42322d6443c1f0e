"""The recording store on PostgreSQL: a single game or a whole batch in one statement fed by one JSON document.

One statement (data-modifying CTEs) takes the tables' advisory locks, locks the players it finds, creates the
missing ones, and writes the games and seats: a single game is one round trip and, in autocommit, its own
transaction; a batch runs in one transaction. The JSON document is one parameter that the server parses, which
costs the web process far less than adapting a parameter (or an array) per value.

Locks, and why no deadlock with the rating batches (whose foreign-key checks take FOR KEY SHARE on players):

- Existing players are locked FOR SHARE (in id order), never FOR UPDATE and never rewritten: FOR SHARE lets
  KEY SHARE lockers (the rating batches, other recordings' seats) through, and two recordings share it, so no
  player row lock of recording ever waits for a rating batch or the other way round. It does make a ban (an
  UPDATE of the status, FOR NO KEY UPDATE) wait for the game's commit, or the game see the committed ban: that
  is what makes the status decided from it race-free. Missing players are inserted with ON CONFLICT DO NOTHING,
  in handle order.
- Tables are serialised by transaction-scoped advisory locks taken first, in one sorted order, so two requests
  carrying the same tables (in any order) never hold one each and wait for the other.

The status of each game is decided in Python (``status_of``) before the statement runs, from the statuses the
caller assumes (a player not stored yet is new, so active). The statement writes the games only if, for every
one of them, the statuses it locked are the assumed ones and every player has a row it can see; otherwise it
writes no game (so ids still follow the given order) and returns what it saw for the games held back, and the
call goes round again with those statuses. That takes a ban committed a moment ago, a banned player at the table
(the first round assumes nobody is), or a player another request created after this statement's snapshot. The
rule itself never enters the SQL.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextlib import nullcontext

from django.db import transaction

from arena.db import StaleRead, pg_cursor
from arena.models import Game, Player, Seat
from arena.recording_store import GameRow, StatusRule, Written

PLAYER, GAME, SEAT = Player._meta.db_table, Game._meta.db_table, Seat._meta.db_table
NEW_PLAYER_STATUS = Player._meta.get_field("status").default
# A game goes round again only when what the statement saw differs from what the previous round saw, which takes
# a ban or an account creation committed in the moment between two rounds: more than a few is a stampede, and
# the caller runs the whole call again.
MAX_ROUNDS = 4

_WRITE_SQL = f"""
WITH doc AS (SELECT %s::jsonb AS j),
gi AS (
    SELECT x.* FROM doc, jsonb_to_recordset(doc.j -> 'games')
        AS x(ord int4, t text, ti text, v jsonb, r bool, f timestamptz, d jsonb, s text, rec int2, cs int2,
             w jsonb, sip bool, fp text)
),
si AS (
    SELECT y.* FROM doc, jsonb_to_recordset(doc.j -> 'seats')
        AS y(t text, h text, ps text, pos int2, sc int4, q bool, te text, side int2, pl int2, f jsonb, ip text,
             dev text)
),
locks AS (
    SELECT count(pg_advisory_xact_lock(k)) AS n FROM (
        SELECT hashtextextended((doc.j ->> 'server') || ':' || gi.t, 0) AS k FROM doc, gi ORDER BY 1
    ) AS keys
),
todo AS (
    SELECT gi.t FROM gi, locks, doc
    WHERE locks.n >= 0 AND NOT EXISTS (
        SELECT 1 FROM {GAME} stored WHERE stored.server_id = (doc.j ->> 'server')::int8 AND stored.table_id = gi.t)
),
hs AS (SELECT DISTINCT si.h FROM si JOIN todo ON todo.t = si.t),
locked AS (
    SELECT p.id, p.handle, p.status FROM {PLAYER} p WHERE p.handle IN (SELECT h FROM hs) ORDER BY p.id FOR SHARE
),
fresh AS (
    INSERT INTO {PLAYER} (handle, status, created_at)
    SELECT hs.h, %s, now() FROM hs WHERE hs.h NOT IN (SELECT handle FROM locked) ORDER BY 1
    ON CONFLICT (handle) DO NOTHING
    RETURNING id, handle, status
),
known AS (SELECT id, handle, status FROM locked UNION ALL SELECT id, handle, status FROM fresh),
held AS (
    SELECT todo.t FROM todo WHERE EXISTS (
        SELECT 1 FROM si LEFT JOIN known k ON k.handle = si.h
        WHERE si.t = todo.t AND (k.id IS NULL OR k.status IS DISTINCT FROM si.ps))
),
g AS (
    INSERT INTO {GAME} (server_id, table_id, title, variant, rated, finished_at, accepted_at, details, status,
                        rec, coop_score, warnings, same_ip, fingerprint, trueskill_done)
    SELECT (doc.j ->> 'server')::int8, gi.t, gi.ti, gi.v, gi.r, gi.f, now(), gi.d, gi.s, gi.rec, gi.cs, gi.w,
           gi.sip, gi.fp, false
    FROM gi JOIN todo ON todo.t = gi.t, doc WHERE NOT EXISTS (SELECT 1 FROM held) ORDER BY gi.ord
    ON CONFLICT (server_id, table_id) DO NOTHING
    RETURNING id, table_id, status
),
seats AS (
    INSERT INTO {SEAT} (game_id, player_id, position, score, quit, team, side, place, fields, ip_hash,
                        device_hash)
    SELECT g.id, k.id, si.pos, si.sc, si.q, si.te, si.side, si.pl, si.f, si.ip, si.dev
    FROM si JOIN g ON g.table_id = si.t JOIN known k ON k.handle = si.h
)
SELECT g.table_id, g.id, NULL, g.status FROM g
UNION ALL
SELECT si.t, NULL, si.h, k.status FROM si JOIN held ON held.t = si.t LEFT JOIN known k ON k.handle = si.h
"""


class PostgresStore:
    def games_write(self, *, server_id: int, rows: Sequence[GameRow], status_of: StatusRule) -> dict[str, Written]:
        # One game is one statement, its own transaction in autocommit; more need one transaction around them.
        with nullcontext() if len(rows) == 1 else transaction.atomic():
            return _rounds(server_id, rows, status_of)


def _rounds(server_id: int, rows: Sequence[GameRow], status_of: StatusRule) -> dict[str, Written]:
    """The first round assumes every player active (nearly always true); a banned player at the table, or a
    player created by a concurrent request, costs a second round that assumes what the first one saw."""
    assumed: dict[str, Mapping[str, str]] = {r.table_id: {s.handle: NEW_PLAYER_STATUS for s in r.seats} for r in rows}
    for _ in range(MAX_ROUNDS):
        written, seen = _statement(server_id, rows, status_of, assumed)
        if not seen:
            return written
        assumed.update(seen)  # nothing was written: the same games go round again, with what was seen
    raise StaleRead(f"players of {len(rows)} games kept changing status over {MAX_ROUNDS} rounds")


def _statement(server_id: int, rows: Sequence[GameRow], status_of: StatusRule,
               assumed: Mapping[str, Mapping[str, str]]) -> tuple[dict[str, Written], dict[str, dict[str, str]]]:
    """One run of the statement: the games written, or (none written) for each game held back the statuses it saw."""
    doc = {
        "server": server_id,
        "games": [
            {"ord": i, "t": r.table_id, "ti": r.title, "v": r.variant, "r": r.rated, "f": r.finished_at.isoformat(),
             "d": r.details, "s": status_of(r, assumed[r.table_id]), "rec": r.rec, "cs": r.coop_score,
             "w": r.warnings, "sip": r.same_ip, "fp": r.fingerprint}
            for i, r in enumerate(rows)
        ],
        "seats": [
            {"t": r.table_id, "h": s.handle, "ps": assumed[r.table_id][s.handle], "pos": s.position, "sc": s.score,
             "q": s.quit, "te": s.team, "side": s.side, "pl": s.place, "f": s.fields, "ip": s.ip_hash,
             "dev": s.device_hash}
            for r in rows for s in r.seats
        ],
    }
    with pg_cursor(binary=False) as cur:
        cur.execute(_WRITE_SQL, [json.dumps(doc, separators=(",", ":")), NEW_PLAYER_STATUS], prepare=True)
        answer = cur.fetchall()
    written: dict[str, Written] = {}
    seen: dict[str, dict[str, str]] = {}
    for table_id, game_id, handle, status in answer:
        if game_id is not None:
            written[table_id] = Written(game_id, status)
        else:  # held back; a player without a visible row was just created by another request, so is new
            seen.setdefault(table_id, {})[handle] = status or NEW_PLAYER_STATUS
    return written, seen
