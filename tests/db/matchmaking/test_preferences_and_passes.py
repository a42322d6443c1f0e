"""Players' preferences (docs/api.md) and what a pass does with them; the pass's one-transaction write."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import override_settings
from django.utils import timezone

from arena.models import Player
from matchmaking import engine, store
from matchmaking.models import OpenSeat, Pool, Table, Ticket
from matchmaking.services import pool_run, pools_run_due
from tests.db.matchmaking.conftest import ticket_body

pytestmark = pytest.mark.django_db

URL = "/api/v1/players/{}/preferences/"
TICKETS = "/api/v1/matchmaking/tickets/"


def put(api, handle, body, expect=200):
    response = api.put(URL.format(handle), body, format="json")
    assert response.status_code == expect, response.json()
    return response.json()


def test_preferences_are_stored_and_read_back(api):
    body = put(api, "alice", {"refuse_same_ip": True, "blocked": ["mallory", "eve", "mallory"]})
    assert body == {"player": "alice", "refuse_same_ip": True, "blocked": ["eve", "mallory"]}
    assert api.get(URL.format("alice")).json() == body


def test_blocked_players_unknown_so_far_are_created(api):
    put(api, "alice", {"blocked": ["stranger"]})
    assert Player.objects.filter(handle__in=["alice", "stranger"]).count() == 2


def test_a_put_replaces_the_preferences(api):
    put(api, "alice", {"refuse_same_ip": True, "blocked": ["eve"]})
    assert put(api, "alice", {"blocked": []}) == {"player": "alice", "refuse_same_ip": False, "blocked": []}


def test_a_player_cannot_block_themself(api):
    response = api.put(URL.format("alice"), {"blocked": ["bob", "alice"]}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "cannot_block_self"
    assert "blocked.1" in response.json()["error"]["fields"]


@override_settings(MATCHMAKING_BLOCKED_MAX=3)
def test_the_blocked_list_is_bounded(api):
    put(api, "alice", {"blocked": ["a", "b", "c"]})
    response = api.put(URL.format("alice"), {"blocked": ["a", "b", "c", "d"]}, format="json")
    assert response.status_code == 400 and "blocked" in response.json()["error"]["fields"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"refuse_same_ip": "yes"}, "refuse_same_ip"),
        ({"blocked": "mallory"}, "blocked"),
        ({"blocked": ["bad name"]}, "blocked.0"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_preferences_are_400(api, body, field):
    response = api.put(URL.format("alice"), body, format="json")
    assert response.status_code == 400 and field in response.json()["error"]["fields"]


def test_preferences_of_an_unseen_or_a_quiet_player_are_the_defaults(api):
    assert api.get(URL.format("nobody")).json() == {"player": "nobody", "refuse_same_ip": False, "blocked": []}
    assert not Player.objects.filter(handle="nobody").exists()  # a read creates nobody
    Player.objects.create(handle="quiet")
    assert api.get(URL.format("quiet")).json() == {"player": "quiet", "refuse_same_ip": False, "blocked": []}
    assert api.get(URL.format("not a handle")).status_code == 404


def test_a_put_of_one_field_resets_the_other_to_its_default(api):
    put(api, "alice", {"refuse_same_ip": True, "blocked": ["eve"]})
    assert put(api, "alice", {"refuse_same_ip": False}) == {"player": "alice", "refuse_same_ip": False, "blocked": []}


def patch(api, handle, body, expect=200):
    response = api.patch(URL.format(handle), body, format="json")
    assert response.status_code == expect, response.json()
    return response.json()


def test_a_patch_changes_only_the_fields_sent(api):
    put(api, "alice", {"refuse_same_ip": True, "blocked": ["eve", "mallory"]})
    assert patch(api, "alice", {"refuse_same_ip": False}) == {
        "player": "alice",
        "refuse_same_ip": False,
        "blocked": ["eve", "mallory"],
    }
    assert patch(api, "alice", {"blocked": ["trent"]}) == {
        "player": "alice",
        "refuse_same_ip": False,
        "blocked": ["trent"],
    }
    assert patch(api, "alice", {}) == {"player": "alice", "refuse_same_ip": False, "blocked": ["trent"]}
    assert api.get(URL.format("alice")).json()["blocked"] == ["trent"]


def test_a_patch_creates_an_unseen_player_with_the_other_field_at_its_default(api):
    assert patch(api, "newbie", {"refuse_same_ip": True}) == {"player": "newbie", "refuse_same_ip": True, "blocked": []}
    assert Player.objects.filter(handle="newbie").exists()


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"refuse_same_ip": None}, "refuse_same_ip", "invalid_input"),
        ({"blocked": ["ok", "bad name"]}, "blocked.1", "invalid_input"),
        ({"colour": "red"}, "colour", "invalid_input"),
        ({"blocked": ["alice"]}, "blocked.0", "cannot_block_self"),
    ],
)
def test_a_bad_patch_is_400_and_changes_nothing(api, body, field, code):
    put(api, "alice", {"refuse_same_ip": True, "blocked": ["eve"]})
    response = api.patch(URL.format("alice"), body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code and field in response.json()["error"]["fields"]
    assert api.get(URL.format("alice")).json() == {"player": "alice", "refuse_same_ip": True, "blocked": ["eve"]}


def test_preferences_need_a_key(anon):
    assert anon.put(URL.format("alice"), {"blocked": []}, format="json").status_code == 401


# ---- Preferences at the table ------------------------------------------------------------------------------


def _queue(api, names, **extra):
    return [api.post(TICKETS, ticket_body(name, **extra), format="json").json() for name in names]


def test_a_block_keeps_two_players_apart_whoever_blocked(api):
    put(api, "d", {"blocked": ["a"]})
    tickets = _queue(api, "abcd")
    # {a, b, c, d} is the only possible 4 and d blocked a: nothing forms; e replaces d and the table forms.
    assert [t["status"] for t in tickets] == ["waiting"] * 4
    last = api.post(TICKETS, ticket_body("e"), format="json").json()
    assert last["table"]["players"] == ["a", "b", "c", "e"]


def test_a_same_ip_refusal_applies_to_the_whole_table(api):
    # a and b share an IP and do not mind; c refuses same-IP tables: {a, b, c, d} is refused, so four tickets
    # form nothing. With e, a (oldest) may sit at {a, b, d, e} or {a, c, d, e}: equal quality (all newcomers), and
    # b waited longer than c, so {a, b, d, e} forms, with its warning. c is never seated with both a and b.
    put(api, "c", {"refuse_same_ip": True})
    _queue(api, "a", ip="203.0.113.7")
    _queue(api, "b", ip="203.0.113.7")
    tickets = _queue(api, "cd")
    assert [t["status"] for t in tickets] == ["waiting", "waiting"]
    last = api.post(TICKETS, ticket_body("e"), format="json").json()
    assert last["table"]["players"] == ["a", "b", "d", "e"]
    assert last["table"]["warnings"] == [{"code": "same_ip", "players": ["a", "b"]}]


def test_a_block_changed_while_waiting_applies_to_the_next_pass(api):
    tickets = _queue(api, "abc")
    put(api, "b", {"blocked": ["d"]})
    assert api.post(TICKETS, ticket_body("d"), format="json").json()["status"] == "waiting"
    assert {t["status"] for t in tickets} == {"waiting"}


# ---- The pass ----------------------------------------------------------------------------------------------


@override_settings(MATCHMAKING_PASS_ON_REQUEST=False)
def test_a_pass_writes_tables_statuses_and_frees_the_players(api):
    ids = [t["id"] for t in _queue(api, "abcdef")]
    pool = Pool.objects.get()
    result = pool_run(pool_id=pool.pk)
    # Six fresh newcomers, recommended 4: one table of 4 (a, b, c, d: the oldest), e and f wait.
    assert (result.waiting, result.tables, result.matched, result.expired) == (6, 1, 4, 0)
    table = Table.objects.get()
    assert table.players == ["a", "b", "c", "d"]
    statuses = dict(Ticket.objects.values_list("pk", "status"))
    assert [statuses[uuid.UUID(i)] for i in ids] == ["matched"] * 4 + ["waiting"] * 2
    assert set(OpenSeat.objects.values_list("player__handle", flat=True)) == {"e", "f"}
    assert Pool.objects.get().last_pass_at is not None


@override_settings(MATCHMAKING_PASS_ON_REQUEST=False)
def test_a_second_pass_matches_nobody_twice(api):
    _queue(api, "abcd")
    pool = Pool.objects.get()
    assert pool_run(pool_id=pool.pk).tables == 1
    assert pool_run(pool_id=pool.pk).waiting == 0
    assert Table.objects.count() == 1


@override_settings(MATCHMAKING_PASS_ON_REQUEST=False)
def test_a_pass_that_would_seat_a_ticket_no_longer_waiting_writes_nothing(api):
    # The pool is loaded, then a ticket is cancelled behind the pass's back (as if a writer skipped the lock):
    # the conditional update counts one ticket short and the whole pass is rolled back.
    ids = [t["id"] for t in _queue(api, "abcd")]
    pool = Pool.objects.get()
    loaded = store.pool_load(pool=pool)
    now = timezone.now()
    tables = engine.match(loaded.tickets, now.timestamp(), recommended=4, game_min=2, game_max=5)
    assert len(tables) == 1
    Ticket.objects.filter(pk=ids[2]).update(status="cancelled")
    with pytest.raises(store.StaleTicket), transaction.atomic():
        store.pass_write(pool=pool, loaded=loaded, tables=tables, expired=[], now=now)
    assert not Table.objects.exists()
    assert Ticket.objects.filter(status="matched").count() == 0


@override_settings(MATCHMAKING_PASS_ON_REQUEST=False)
def test_the_beat_task_runs_every_pool_with_tickets_waiting(api):
    _queue(api, "abcd")
    _queue(api, "abc", game="hanabi")  # Hanabi is matched at 3
    _queue(api, "x", game="nile")
    results = pools_run_due()
    assert sorted((r.waiting, r.tables) for r in results) == [(1, 0), (3, 1), (4, 1)]


@override_settings(MATCHMAKING_PASS_ON_REQUEST=False)
def test_expired_tickets_are_closed_by_the_pass(api):
    tickets = _queue(api, "ab")
    Ticket.objects.filter(pk=tickets[0]["id"]).update(created_at=timezone.now() - timedelta(seconds=601))
    result = pool_run(pool_id=Pool.objects.get().pk)
    assert result.expired == 1 and result.tables == 0
    assert Ticket.objects.get(pk=tickets[0]["id"]).status == "expired"
    assert not OpenSeat.objects.filter(ticket_id=tickets[0]["id"]).exists()
