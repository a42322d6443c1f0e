"""Property tests through the service: random players, preferences and arrival sequences, a pass after each
arrival, and every table judged from docs/matchmaking.md by ``judge`` (not by the engine).

Properties: no block and no same-IP refusal ever broken, no ticket matched twice, no table outside its members'
ranges or tolerances; and nobody who could be seated waits behind a younger ticket. In pools of at most nine
waiting tickets the engine's bounded search sees every candidate, so there the last property is exact: after a
pass no valid table remains among the waiting tickets, and a ticket left waiting could not have taken the seat of
any ticket younger than itself at a table the pass formed.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import combinations

import pytest
from django.test import override_settings
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from arena.models import GameServer, Player
from arena.servers import game_server_create
from infra.errors import ArenaError
from matchmaking.models import Delivery, OpenSeat, Pool, Preferences, Table, Ticket, TicketSeat
from matchmaking.preferences import preferences_set
from matchmaking.services import SeatInput, TicketInput, pool_run, ticket_create
from ratings.models import Rating
from tests.db.matchmaking import judge

pytestmark = pytest.mark.django_db

NAMES = [f"p{i}" for i in range(9)]
IPS = ["ip-a", "ip-b", "ip-c", "ip-d", "ip-e", "ip-f"]
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
GAMES = {"tokaido": (2, 5), "hanabi": (2, 5), "spades": (4, 4), "wizard": (3, 6)}

players = st.fixed_dictionaries(
    {
        "skill": st.none() | st.tuples(st.sampled_from([20.0, 25.0, 30.0]), st.sampled_from([2.0, 5.0, 25 / 3])),
        "elo": st.sampled_from([1500.0, 1400.0, 1650.0, 1900.0, 1200.0]) | st.floats(1100, 1900),
        "refuses": st.booleans(),
        "blocked": st.lists(st.sampled_from(NAMES), max_size=2),
    }
)
arrival = st.fixed_dictionaries(
    {
        "after": st.sampled_from([0, 1, 3, 7, 15, 31, 70, 200]),
        "player": st.integers(0, len(NAMES) - 1),
        "ip": st.sampled_from(IPS),
        "friends": st.lists(st.tuples(st.integers(0, len(NAMES) - 1), st.sampled_from(IPS)), max_size=2),
        "range": st.tuples(st.integers(2, 6), st.integers(2, 6)),
        "cancel": st.booleans(),
        # Arrivals without a pass in between pile up, so that one pass has several tables to choose among.
        "pass": st.sampled_from([True, False, False]),
    }
)


def _reset() -> GameServer:
    for model in (Delivery, OpenSeat, TicketSeat, Ticket, Table, Pool, Preferences, Rating):
        model.objects.all().delete()
    Player.objects.all().delete()
    return game_server_create(name=f"prop-{Player.objects.count()}-{datetime.now().timestamp()}").server


def _request(title: str, event: dict, seq: int) -> TicketInput:
    low_g, high_g = GAMES[title]
    least, most = sorted(event["range"])
    least, most = max(least, max(low_g, 2)), min(most, high_g)
    friends = []
    for index, ip in event["friends"]:
        if NAMES[index] != NAMES[event["player"]] and NAMES[index] not in [f.player for f in friends]:
            friends.append(SeatInput(NAMES[index], ip))
    return TicketInput(
        player=SeatInput(NAMES[event["player"]], event["ip"]),
        title=title,
        variant={},
        rated=True,
        min_players=min(least, most),
        max_players=max(least, most),
        party=tuple(friends),
        request_id=None,
        fingerprint=f"fp-{seq}",
    )


def _check_pass(now: datetime, formed_before: set, title: str, seated: dict) -> None:
    by_id = judge.units()
    new_tables = list(Table.objects.exclude(pk__in=formed_before))
    for table in new_tables:
        problem = judge.table_problem(table, by_id)
        assert problem is None, (problem, table.players)
        for ticket_id in table.tickets.values_list("pk", flat=True):
            assert ticket_id not in seated, f"ticket {ticket_id} matched twice"
            seated[ticket_id] = table.pk
        formed_before.add(table.pk)
    # Every matched ticket points at exactly one table; every other ticket at none; only waiting seats are open.
    for ticket in Ticket.objects.all():
        assert (ticket.status == "matched") == (ticket.table_id is not None) == (ticket.pk in seated)
    open_seats = set(OpenSeat.objects.values_list("ticket_id", flat=True))
    assert open_seats == set(Ticket.objects.filter(status="waiting").values_list("pk", flat=True))
    waiting = [by_id[str(t)] for t in Ticket.objects.filter(status="waiting").values_list("pk", flat=True)]
    # The engine's search sees every candidate when at most nine tickets were live in the pass: then these are
    # exact consequences of "oldest first, and it picks the best table".
    if len(waiting) + sum(t.tickets.count() for t in new_tables) > 9:
        return
    # Nobody who could be seated waits: no valid table is left among the waiting tickets...
    for count in range(2, len(waiting) + 1):
        for group in combinations(waiting, count):
            assert judge.violation(list(group), now, title, {}, slack=-1e-3) is not None, (
                f"{[u.players for u in group]} could have formed a table"
            )
    for table in new_tables:
        members = sorted(
            (by_id[str(t)] for t in table.tickets.values_list("pk", flat=True)), key=lambda u: u.created_at
        )
        oldest, formed = members[0], judge.preference(members, now)
        for x in waiting:
            # ... nobody waiting could have joined a table just formed (larger is preferred) ...
            assert judge.violation([*members, x], now, title, {}, slack=-1e-3) is not None, (
                f"{x.players} could have joined {table.players}"
            )
            # ... nor taken a seat at it to make a better table for the ticket it was formed for, its oldest.
            for y in members[1:]:
                swapped = [u for u in members if u is not y] + [x]
                if y.seats == x.seats and judge.violation(swapped, now, title, {}, slack=-1e-3) is None:
                    better = judge.preference(swapped, now)
                    assert better[0] < formed[0] or (better[0] == formed[0] and better[1] <= formed[1] + 1e-6), (
                        f"{x.players} waits though {[u.players for u in swapped]} beats {table.players} for "
                        f"{oldest.players}"
                    )


@override_settings(MATCHMAKING_PASS_ON_REQUEST=False)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
# Five newcomers queued before one pass: the oldest four must be seated and the youngest wait (the case that
# tells "oldest first" from any other order).
@example(
    title="tokaido",
    people=[{"skill": None, "elo": 1500.0, "refuses": False, "blocked": []}] * len(NAMES),
    arrivals=[
        {"after": 1, "player": i, "ip": IPS[i], "friends": [], "range": (2, 5), "cancel": False, "pass": False}
        for i in range(5)
    ],
)
@given(
    title=st.sampled_from(sorted(GAMES)),
    people=st.lists(players, min_size=len(NAMES), max_size=len(NAMES)),
    arrivals=st.lists(arrival, min_size=1, max_size=16),
)
def test_random_arrivals_only_ever_form_valid_tables(title, people, arrivals):
    server = _reset()
    for name, person in zip(NAMES, people, strict=True):
        mu, sigma = person["skill"] or (None, None)
        Rating.objects.create(
            player=Player.objects.create(handle=name), title=title, elo=person["elo"], ts_mu=mu, ts_sigma=sigma
        )
    for name, person in zip(NAMES, people, strict=True):
        blocked = [b for b in person["blocked"] if b != name]
        preferences_set(handle=name, refuse_same_ip=person["refuses"], blocked=blocked)
    now = START
    formed: set = set()
    seated: dict = {}
    for seq, event in enumerate(arrivals):
        now += timedelta(seconds=event["after"])
        try:
            created = ticket_create(server=server, data=_request(title, event, seq), now=now).ticket
        except ArenaError:
            created = None  # someone already has an open ticket, or the party does not fit: refused, as it must
        due = event["pass"] or seq == len(arrivals) - 1
        result = pool_run(pool_id=Pool.objects.get().pk, now=now, wait=True) if due and Pool.objects.exists() else None
        if result is not None:
            _check_pass(now, formed, title, seated)
        if created is not None and event["cancel"] and event["after"] % 2:
            Ticket.objects.filter(pk=created.pk, status="waiting").update(status="cancelled")
            OpenSeat.objects.filter(ticket=created).delete()
