"""Every table a pass forms is one docs/matchmaking.md allows, over many random pools: each member accepts
every other (Elo within 150 + 10 x seconds waited, at most 800, both ways), no block either way, no shared
address at a table where anyone refuses them, sizes within the game's and every ticket's range, nobody twice.

The checker is written from the document, not from the engine (it does not call ``accepts`` or ``tolerance``);
mutation testing (docs/testing.md) showed the engine's pair checks unpinned by the hand-worked cases alone.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from matchmaking.engine import Member, Ticket, match

NOW = 50_000.0


def docs_tolerance(waited: float) -> float:
    return min(800.0, 150.0 + 10.0 * max(0.0, waited))


def seats(t: Ticket) -> list[tuple[str, str, frozenset[str], bool]]:
    """(player, address, blocked, refuses) of every seat of a ticket."""
    return [
        (t.player, t.ip_hash, t.blocked, t.refuses_same_ip),
        *((m.player, m.ip_hash, m.blocked, m.refuses_same_ip) for m in t.party),
    ]


def strength(t: Ticket) -> float:
    return (t.elo + sum(m.elo for m in t.party)) / (1 + len(t.party))


def problem(table_tickets: list[Ticket], low: int, high: int) -> str | None:
    size = sum(1 + len(t.party) for t in table_tickets)
    if not low <= size <= high:
        return f"size {size} outside the game's {low}-{high}"
    for t in table_tickets:
        if not t.min_players <= size <= t.max_players:
            return f"size {size} outside {t.id}'s {t.min_players}-{t.max_players}"
    for a, b in combinations(table_tickets, 2):
        gap = abs(strength(a) - strength(b))
        if gap > docs_tolerance(NOW - a.queued_at) or gap > docs_tolerance(NOW - b.queued_at):
            return f"{a.id} and {b.id} are {gap:.1f} apart"
        for pa, _, blocked_a, _ in seats(a):
            for pb, _, blocked_b, _ in seats(b):
                if pb in blocked_a or pa in blocked_b:
                    return f"{pa} and {pb}: a block"
    # Inside a party an address may be shared; between two tickets not, once anyone at the table refuses it.
    if any(refuses for t in table_tickets for *_, refuses in seats(t)):
        for a, b in combinations(table_tickets, 2):
            if {ip for _, ip, _, _ in seats(a)} & {ip for _, ip, _, _ in seats(b)}:
                return "a shared address at a table where someone refuses them"
    return None


def random_pool(rnd: random.Random, size: int) -> list[Ticket]:
    pool = []
    names = [f"p{i}" for i in range(size * 2)]
    for i in range(size):
        party = ()
        if rnd.random() < 0.15:
            party = (
                Member(
                    player=f"f{i}",
                    ip_hash=f"ip{rnd.randrange(4)}",
                    elo=rnd.gauss(1500, 200),
                    skill=(rnd.uniform(20, 30), rnd.uniform(2, 8)),
                    refuses_same_ip=rnd.random() < 0.2,
                    blocked=frozenset(rnd.sample(names, 1) if rnd.random() < 0.2 else ()),
                ),
            )
        low = rnd.choice([2, 2, 3])
        pool.append(
            Ticket(
                id=f"t{i:03d}",
                player=f"p{i}",
                ip_hash=f"ip{rnd.randrange(4)}",
                elo=rnd.gauss(1500, 200),
                skill=(rnd.uniform(20, 30), rnd.uniform(2, 8)),
                min_players=low,
                max_players=rnd.choice([low, 4, 5]),
                refuses_same_ip=rnd.random() < 0.25,
                queued_at=NOW - rnd.choice([0, 3, 12, 29, 31, 45, 70]),
                blocked=frozenset(rnd.sample(names, 2) if rnd.random() < 0.3 else ()),
                party=party,
            )
        )
    return pool


@pytest.mark.parametrize("seed", range(6))
def test_every_table_formed_is_allowed_by_the_document(seed):
    rnd = random.Random(seed)
    formed = 0
    for _ in range(60):
        pool = random_pool(rnd, rnd.randint(2, 14))
        by_id = {t.id: t for t in pool}
        tables = match(pool, NOW, recommended=3, game_min=2, game_max=5)
        used = [t.id for table in tables for t in table.tickets]
        assert len(used) == len(set(used)), "a ticket seated twice"
        players = [p for table in tables for p in table.players]
        assert len(players) == len(set(players)), "a player seated twice"
        for table in tables:
            members = [by_id[t.id] for t in table.tickets]
            assert problem(members, 2, 5) is None, (problem(members, 2, 5), table)
            assert sorted(table.players) == sorted(p for t in members for p, *_ in seats(t))
        formed += len(tables)
    assert formed > 40  # the pools are matchable: the property is not vacuous


def test_the_checker_itself_refuses_what_the_document_forbids():
    a = Ticket(
        id="a",
        player="a",
        ip_hash="x",
        elo=1500,
        skill=(25, 8),
        min_players=2,
        max_players=5,
        refuses_same_ip=False,
        queued_at=NOW,
    )
    b = Ticket(
        id="b",
        player="b",
        ip_hash="x",
        elo=1600,
        skill=(25, 8),
        min_players=2,
        max_players=5,
        refuses_same_ip=False,
        queued_at=NOW,
    )
    c = Ticket(
        id="c",
        player="c",
        ip_hash="y",
        elo=1500,
        skill=(25, 8),
        min_players=2,
        max_players=5,
        refuses_same_ip=True,
        queued_at=NOW - 60,
    )
    assert problem([a, b], 2, 5) is None
    assert problem([a, b, c], 2, 5) == "a shared address at a table where someone refuses them"
    far = Ticket(
        id="far",
        player="far",
        ip_hash="z",
        elo=1700,
        skill=(25, 8),
        min_players=2,
        max_players=5,
        refuses_same_ip=False,
        queued_at=NOW - 60,
    )
    assert problem([a, far], 2, 5) == "a and far are 200.0 apart"  # far accepts 750, a only 150
