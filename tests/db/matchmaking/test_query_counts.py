"""Exact query counts of a matchmaking pass and of a ticket's POST and GET (issue 17), whatever the pool's size.

Each figure is the sum of the statements named beside it, counted from the code, not read off a run. Two things
make SQLite's and PostgreSQL's figures differ, both on purpose (matchmaking/store/):

- PostgreSQL's pass sets ``work_mem`` for its transaction (one ``SET LOCAL``) and writes everything it decided in
  one statement (tables, matched and expired tickets, freed seats, the pool's stamp); SQLite, the embedded mode,
  takes the ORM path with the same meaning: one statement per kind of row, only for the kinds the pass has.
Everything else (the authentication, the ticket's own writes, the reads) is the same statements on both.

Every ``transaction.atomic()`` costs two statements here, ``SAVEPOINT`` and ``RELEASE SAVEPOINT``, because the test
runs inside its own transaction; outside a test the same block is a ``BEGIN`` (SQLite) or no statement at all
(PostgreSQL opens its transaction with the first query), and a ``COMMIT`` neither backend logs.

The pools are filled through the service, without a pass, so each test measures one request's or one pass's
statements and the pool's size is the only thing that changes between its two runs (8 and 80 tickets).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from arena.models import Player
from matchmaking.api.payload import parse_ticket
from matchmaking.models import Delivery, OpenSeat, Pool, ServerCallback, Ticket
from matchmaking.services import pool_run, ticket_create
from ratings.models import Rating
from tests.db.matchmaking.conftest import ticket_body

pytestmark = pytest.mark.django_db

URL = "/api/v1/matchmaking/tickets/"
SIZES = [8, 80]
# Far beyond what a fresh ticket accepts (150 Elo, 10 more a second of waiting, docs/matchmaking.md): a pool of
# players this far apart forms no table in the seconds a test takes.
APART = 5000.0

SAVEPOINT = 2  # SAVEPOINT and RELEASE SAVEPOINT around a transaction.atomic() (see the module's docstring)


def by_backend(*, sqlite: int, postgresql: int) -> int:
    return {"sqlite": sqlite, "postgresql": postgresql}[connection.vendor]


# ---- A pass ------------------------------------------------------------------------------------------------
# Common to every pass: its transaction, the pool's row lock (SELECT ... FOR UPDATE; SQLite locks the file) and the
# load of every waiting seat with its rating, preferences and reputation (one query).
PASS_BASE = SAVEPOINT + 1 + 1
PG_WORK_MEM = 1  # SET LOCAL work_mem, PostgreSQL only
# PostgreSQL reads the waiting tickets' keys before the load, which takes them as a literal array (store/load.py).
PG_KEYS = 1


def pass_forming() -> int:
    """PostgreSQL: the one write statement. SQLite: INSERT the tables (one bulk statement, up to 111 tables,
    Django's batch for SQLite), UPDATE the seated tickets (a CASE gives each its table), DELETE their open seats,
    UPDATE the pool's last_pass_at. Both then read the pool's servers' callbacks (none here: no push written)."""
    return PASS_BASE + by_backend(sqlite=4, postgresql=PG_WORK_MEM + PG_KEYS + 1) + 1


def pass_forming_none() -> int:
    """PostgreSQL runs its one write statement anyway (it stamps the pool); SQLite only stamps the pool."""
    return PASS_BASE + by_backend(sqlite=1, postgresql=PG_WORK_MEM + PG_KEYS + 1)


def pass_expiring() -> int:
    """SQLite: UPDATE the expired tickets, DELETE their open seats, UPDATE the pool; PostgreSQL: the one write.
    Both then read which expired tickets' servers take pushes (ticket.expired; none here: no push written)."""
    return PASS_BASE + by_backend(sqlite=3, postgresql=PG_WORK_MEM + PG_KEYS + 1) + 1


def fill_pool(server, n: int, *, apart: float = 0.0, created_at=None) -> Pool:
    """``n`` waiting Tokaido tickets of four players exactly, without a pass: players with ratings ``apart``
    Elo from one another (0: all at 1500, any four make a table), each with an IP of their own."""
    players = Player.objects.bulk_create([Player(handle=f"w{i}") for i in range(n)])
    Rating.objects.bulk_create(
        [Rating(player=p, title="tokaido", elo=1500.0 + apart * (i + 1), games=3) for i, p in enumerate(players)]
    )
    for i in range(n):
        ticket_create(
            server=server, data=parse_ticket(ticket_body(f"w{i}", min_players=4, max_players=4)), now=created_at
        )
    assert OpenSeat.objects.filter(position=0).count() == n
    return Pool.objects.get()


@pytest.mark.parametrize("n", SIZES)
def test_a_pass_that_seats_the_whole_pool(server_key, django_assert_num_queries, n):
    pool = fill_pool(server_key[0], n)
    with django_assert_num_queries(pass_forming()):
        result = pool_run(pool_id=pool.pk, wait=True)
    # n players at one rating, tables of exactly four: n / 4 tables, everyone seated.
    assert (result.waiting, result.tables, result.matched, result.expired) == (n, n // 4, n, 0)
    assert not OpenSeat.objects.exists()


@pytest.mark.parametrize("n", SIZES)
def test_a_pass_whose_tables_are_pushed(server_key, django_assert_num_queries, n):
    # The server has a callback: one push per table, all in one more INSERT (a bulk statement on both backends, up
    # to 83 pushes on SQLite, Django's batch for its 12 columns). They are sent after the commit, which a test's
    # transaction never reaches, so nothing is sent here.
    ServerCallback.objects.create(server=server_key[0], url="https://127.0.0.1:9/arena")
    pool = fill_pool(server_key[0], n)
    with django_assert_num_queries(pass_forming() + 1):
        result = pool_run(pool_id=pool.pk, wait=True)
    assert result.tables == n // 4
    assert Delivery.objects.filter(server=server_key[0]).count() == n // 4


@pytest.mark.parametrize("n", SIZES)
def test_a_pass_that_forms_no_table(server_key, django_assert_num_queries, n):
    pool = fill_pool(server_key[0], n, apart=APART)
    with django_assert_num_queries(pass_forming_none()):
        result = pool_run(pool_id=pool.pk, wait=True)
    assert (result.waiting, result.tables, result.matched, result.expired) == (n, 0, 0, 0)
    assert OpenSeat.objects.filter(position=0).count() == n


@pytest.mark.parametrize("n", SIZES)
def test_a_pass_that_expires_the_whole_pool(server_key, django_assert_num_queries, n):
    # Created eleven minutes ago: past the ten minutes a ticket waits (docs/matchmaking.md), so none is seated.
    pool = fill_pool(server_key[0], n, created_at=timezone.now() - timedelta(minutes=11))
    with django_assert_num_queries(pass_expiring()):
        result = pool_run(pool_id=pool.pk, wait=True)
    assert (result.waiting, result.tables, result.matched, result.expired) == (n, 0, 0, n)
    assert Ticket.objects.filter(status=Ticket.Status.EXPIRED).count() == n


# ---- A ticket's POST ---------------------------------------------------------------------------------------
AUTH = 1  # the game server by its key's hash (arena/servers.py)
# ticket_create for a new player into an existing pool: the pool (get_or_create, found), the ticket's transaction,
# the player (SELECT, INSERT ... ON CONFLICT DO NOTHING / INSERT OR IGNORE, SELECT again), the cool-down check, the
# open-ticket check, the server's waiting count, and the INSERTs of the ticket, its seats and its open seats.
CREATE_NEW_PLAYER = 1 + SAVEPOINT + 3 + 1 + 1 + 1 + 3
# The answer: the seats' handles, and for a waiting ticket the pool's waiting count; a matched ticket also looks up
# the game recorded from its table (`recorded_game`, one query by the server's table id).
PRESENT_MATCHED = 2
PRESENT_WAITING = 2
REREAD = 1  # after a pass on request, the ticket read again with its pool and table


def post(api, handle: str, expect: str) -> None:
    response = api.post(URL, ticket_body(handle, min_players=4, max_players=4), format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["status"] == expect


@pytest.mark.parametrize("n", SIZES)
def test_post_without_a_pass(api, server_key, settings, django_assert_num_queries, n):
    settings.MATCHMAKING_PASS_ON_REQUEST = False  # scaled out: the workers' passes, never the request's
    fill_pool(server_key[0], n - 1)
    with django_assert_num_queries(AUTH + CREATE_NEW_PLAYER + PRESENT_WAITING):
        post(api, "newcomer", "waiting")


@pytest.mark.parametrize("n", SIZES)
def test_post_whose_pass_seats_the_pool(api, server_key, django_assert_num_queries, n):
    # Embedded: the POST's pass seats the n - 1 waiting tickets and the new one, n / 4 tables.
    fill_pool(server_key[0], n - 1)
    with django_assert_num_queries(AUTH + CREATE_NEW_PLAYER + pass_forming() + REREAD + PRESENT_MATCHED):
        post(api, "newcomer", "matched")
    assert not OpenSeat.objects.exists()


@pytest.mark.parametrize("n", SIZES)
def test_post_whose_pass_forms_no_table(api, server_key, django_assert_num_queries, n):
    fill_pool(server_key[0], n - 1, apart=APART)  # the newcomer (1500) is 5000 below the nearest
    with django_assert_num_queries(AUTH + CREATE_NEW_PLAYER + pass_forming_none() + REREAD + PRESENT_WAITING):
        post(api, "newcomer", "waiting")


def test_post_of_a_known_player_skips_the_creation(api, server_key, settings, django_assert_num_queries):
    settings.MATCHMAKING_PASS_ON_REQUEST = False
    fill_pool(server_key[0], 7)
    Player.objects.create(handle="regular")
    # The player's SELECT finds them: no INSERT, no second SELECT.
    with django_assert_num_queries(AUTH + CREATE_NEW_PLAYER - 2 + PRESENT_WAITING):
        post(api, "regular", "waiting")


# ---- A ticket's GET ----------------------------------------------------------------------------------------
READ = 1  # the ticket, this server's, with its pool and table joined


def get(api, ticket_id, expect: str) -> None:
    response = api.get(f"{URL}{ticket_id}/")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == expect


def first_ticket() -> str:
    return str(Ticket.objects.get(player__handle="w0").pk)


@pytest.mark.parametrize("n", SIZES)
def test_get_without_a_pass(api, server_key, settings, django_assert_num_queries, n):
    settings.MATCHMAKING_PASS_ON_REQUEST = False
    fill_pool(server_key[0], n)
    ticket = first_ticket()
    with django_assert_num_queries(AUTH + READ + PRESENT_WAITING):
        get(api, ticket, "waiting")


@pytest.mark.parametrize("n", SIZES)
def test_get_whose_pass_seats_the_pool(api, server_key, django_assert_num_queries, n):
    fill_pool(server_key[0], n)
    ticket = first_ticket()
    with django_assert_num_queries(AUTH + READ + pass_forming() + REREAD + PRESENT_MATCHED):
        get(api, ticket, "matched")


@pytest.mark.parametrize("n", SIZES)
def test_get_whose_pass_forms_no_table(api, server_key, django_assert_num_queries, n):
    fill_pool(server_key[0], n, apart=APART)
    ticket = first_ticket()
    with django_assert_num_queries(AUTH + READ + pass_forming_none() + REREAD + PRESENT_WAITING):
        get(api, ticket, "waiting")


@pytest.mark.parametrize("n", SIZES)
def test_get_of_a_matched_ticket_runs_no_pass(api, server_key, django_assert_num_queries, n):
    pool = fill_pool(server_key[0], n)
    pool_run(pool_id=pool.pk, wait=True)
    ticket = first_ticket()
    # Only a waiting ticket's read runs its pool's pass (matchmaking.services.ticket_pass_on_request).
    with django_assert_num_queries(AUTH + READ + PRESENT_MATCHED):
        get(api, ticket, "matched")
