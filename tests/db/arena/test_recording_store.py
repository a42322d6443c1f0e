"""The recording storage seam: one interface, its backend chosen once, the status rule in Python.

These run embedded (SQLite: the portable store) and again on PostgreSQL (the statement store, compared with the
portable one on the same database).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping
from datetime import UTC, datetime

import pytest
from django.db import connection

import arena.recording
from arena.models import Game, Player, Seat
from arena.recording import game_status
from arena.recording_store import GameRow, SeatRow, recording_store
from arena.recording_store.portable import RecordingPortableStore
from arena.recording_store.postgres import RecordingPostgresStore
from arena.servers import game_server_create

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("wants_rating", "statuses", "expected"),
    [
        (True, ["active", "active"], "pending"),
        (True, ["active", "banned"], "unrated"),  # rated for nobody, not even the others at the table
        (True, ["banned"], "unrated"),
        (False, ["active", "active"], "unrated"),  # the server asked for an unrated game, or its rules cannot rate it
        (False, ["banned", "active"], "unrated"),
    ],
)
def test_game_status_rule(wants_rating, statuses, expected):
    assert game_status(wants_rating=wants_rating, player_statuses=statuses) == expected


def test_the_store_is_chosen_once_from_the_database():
    store = recording_store()
    assert store is recording_store()
    assert type(store) is (RecordingPostgresStore if connection.vendor == "postgresql" else RecordingPortableStore)


def test_recording_itself_never_asks_which_database_it_runs_on():
    source = inspect.getsource(arena.recording)
    assert "vendor" not in source and "postgres" not in source and "sqlite" not in source


def _row(table_id: str, handles: list[str], *, wants_rating: bool = True) -> GameRow:
    return GameRow(
        table_id=table_id,
        title="wizard",
        variant={"rounds": "standard"},
        rated=True,
        wants_rating=wants_rating,
        finished_at=datetime(2026, 11, 29, 12, 0, tzinfo=UTC),
        details={"note": "x"},
        recommended_sides=None,
        coop_score=None,
        warnings=[{"code": "same_ip", "players": handles[:2]}],
        same_ip=True,
        fingerprint=f"fp-{table_id}",
        seats=tuple(
            SeatRow(
                handle=h,
                position=i,
                score=10 - i,
                quit=False,
                team=None,
                side=i,
                place=i + 1,
                fields={},
                ip_hash=f"ip-{i % 2}",
                device_hash=None,
            )
            for i, h in enumerate(handles)
        ),
    )


def _rule(row: GameRow, statuses: Mapping[str, str]) -> str:
    return game_status(wants_rating=row.wants_rating, player_statuses=statuses.values())


def _stored(server_id: int) -> tuple[list, list]:
    games = list(
        Game.objects.filter(server_id=server_id)
        .order_by("id")
        .values_list(
            "table_id",
            "title",
            "variant",
            "rated",
            "finished_at",
            "details",
            "status",
            "recommended_sides",
            "coop_score",
            "warnings",
            "same_ip",
            "fingerprint",
            "rating_seq",
        )
    )
    seats = list(
        Seat.objects.filter(game__server_id=server_id)
        .order_by("game_id", "position")
        .values_list(
            "game__table_id",
            "player__handle",
            "position",
            "score",
            "quit",
            "team",
            "side",
            "place",
            "fields",
            "ip_hash",
            "device_hash",
        )
    )
    return games, seats


def test_every_store_writes_the_same_rows():
    Player.objects.create(handle="cheat", status=Player.Status.BANNED)
    Player.objects.create(handle="old")
    rows = [
        _row("T-1", ["old", "new1", "new2"]),
        _row("T-2", ["new2", "cheat", "old"]),
        _row("T-3", ["new3", "old"], wants_rating=False),
    ]
    this, portable = game_server_create(name="this").server, game_server_create(name="portable").server
    written = recording_store().games_write(server_id=this.pk, rows=rows, status_of=_rule)
    portable_written = RecordingPortableStore().games_write(server_id=portable.pk, rows=rows, status_of=_rule)
    assert portable_written.keys() == written.keys()
    assert {t: w.status for t, w in written.items()} == {"T-1": "pending", "T-2": "unrated", "T-3": "unrated"}
    assert _stored(this.pk) == _stored(portable.pk)  # on SQLite both are the portable store: what follows counts
    stored = Game.objects.filter(server=this).order_by("id")
    assert [
        (g.table_id, g.status, list(g.seats.order_by("position").values_list("player__handle", "place")))
        for g in stored
    ] == [
        ("T-1", "pending", [("old", 1), ("new1", 2), ("new2", 3)]),
        ("T-2", "unrated", [("new2", 1), ("cheat", 2), ("old", 3)]),
        ("T-3", "unrated", [("new3", 1), ("old", 2)]),
    ]
    ids = [written[t].id for t in ("T-1", "T-2", "T-3")]
    assert ids == sorted(ids)  # in the given order
    assert Player.objects.filter(handle__startswith="new").count() == 3


def test_a_stored_table_is_skipped_with_its_new_players():
    server = game_server_create(name="s").server
    store = recording_store()
    assert store.games_write(server_id=server.pk, rows=[_row("T-1", ["a", "b"])], status_of=_rule).keys() == {"T-1"}
    again = store.games_write(
        server_id=server.pk, rows=[_row("T-1", ["a", "zed"]), _row("T-2", ["b", "c"])], status_of=_rule
    )
    assert again.keys() == {"T-2"}
    assert not Player.objects.filter(handle="zed").exists()
    assert Seat.objects.filter(game__table_id="T-1").count() == 2


def test_the_store_stores_the_status_the_rule_gives_from_the_statuses_it_read():
    Player.objects.create(handle="cheat", status=Player.Status.BANNED)
    Player.objects.create(handle="old")
    calls: list[tuple[str, dict[str, str]]] = []

    def rule(row: GameRow, statuses: Mapping[str, str]) -> str:
        calls.append((row.table_id, dict(statuses)))
        return "void" if "banned" in statuses.values() else "unrated"  # anything the rule says is what is stored

    server = game_server_create(name="s").server
    written = recording_store().games_write(
        server_id=server.pk, rows=[_row("T-1", ["old", "cheat"]), _row("T-2", ["old", "newbie"])], status_of=rule
    )
    assert {t: w.status for t, w in written.items()} == {"T-1": "void", "T-2": "unrated"}
    assert dict(Game.objects.values_list("table_id", "status")) == {"T-1": "void", "T-2": "unrated"}
    # The last decision for each game was taken from the statuses as stored (a new player is active).
    last = {table_id: statuses for table_id, statuses in calls}
    assert last == {"T-1": {"old": "active", "cheat": "banned"}, "T-2": {"old": "active", "newbie": "active"}}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="plans are PostgreSQL's")
@pytest.mark.parametrize("statement", ["_SINGLE_SQL", "_BATCH_PLAYERS_SQL"])
def test_the_prepared_lookups_probe_by_key_on_a_database_never_analysed(statement):
    """The statements are prepared once per connection, so their generic plan must not depend on statistics: on
    tables never analysed (this machine runs PostgreSQL without autovacuum) a lookup written as ``= ANY(array)``
    was planned as a scan of every player and of every game of the server, and stayed so as the tables grew."""
    import arena.recording_store.postgres as store

    sql = getattr(store, statement).replace("%s::jsonb", "$1::jsonb", 1).replace("%s", "$2", 1)
    with connection.cursor() as cur:
        cur.execute("SELECT reltuples FROM pg_class WHERE relname IN ('arena_player', 'arena_game')")
        if {row[0] for row in cur.fetchall()} != {-1}:  # never analysed is the case that went wrong
            pytest.skip("this database has analysed the tables (autovacuum on): the case does not arise")
        cur.execute("SET plan_cache_mode = force_generic_plan")
        try:
            cur.execute(f"PREPARE probe(jsonb, text) AS {sql}")
            cur.execute("""EXPLAIN EXECUTE probe('{"server": 1, "games": [], "seats": []}', 'active')""")
            plan = "\n".join(row[0] for row in cur.fetchall())
        finally:
            cur.execute("DEALLOCATE ALL")
            cur.execute("RESET plan_cache_mode")
    assert "Seq Scan on arena_player" not in plan and "Seq Scan on arena_game" not in plan, plan
    assert "game_unique_server_table" in plan and "arena_player_pkey" in plan, plan


def test_a_detail_beyond_64_bits_is_stored_as_sent():
    """The statements' document is written by orjson, which refuses integers beyond 64 bits; JSON has no such
    limit and neither has PostgreSQL's jsonb, so such a document takes the standard library's way instead."""
    server = game_server_create(name="s").server
    row = dataclasses.replace(_row("T-big", ["a", "b"]), details={"seed": 2**70, "small": 1})
    written = recording_store().games_write(server_id=server.pk, rows=[row], status_of=_rule)
    assert Game.objects.get(pk=written["T-big"].id).details == {"seed": 2**70, "small": 1}
