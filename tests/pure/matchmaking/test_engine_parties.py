"""Parties in the engine (docs/matchmaking.md): one unit of several seats, mean Elo, rules between units only.
Pure: no database. Every expected table is worked out by hand in the comments."""

from __future__ import annotations

import pytest

from matchmaking.engine import Member, TableWarning, Ticket, match, quality
from tests.pure.matchmaking.test_engine import DEFAULT_SKILL, NOW, ticket


def friend(
    name: str,
    *,
    elo: float = 1500.0,
    ip: str | None = None,
    refuses: bool = False,
    blocked: tuple[str, ...] = (),
    skill: tuple[float, float] = DEFAULT_SKILL,
) -> Member:
    return Member(
        player=name,
        ip_hash=ip or f"ip-{name}",
        elo=elo,
        skill=skill,
        refuses_same_ip=refuses,
        blocked=frozenset(blocked),
    )


def party(name: str, *friends: Member, **extra) -> Ticket:
    base = ticket(name, **extra)
    return Ticket(
        id=base.id,
        player=base.player,
        ip_hash=base.ip_hash,
        elo=base.elo,
        skill=base.skill,
        min_players=base.min_players,
        max_players=base.max_players,
        refuses_same_ip=base.refuses_same_ip,
        queued_at=base.queued_at,
        blocked=base.blocked,
        party=tuple(friends),
    )


def seated(pool, rec=3, low=2, high=5):
    return [table.players for table in match(pool, NOW, recommended=rec, game_min=low, game_max=high)]


def test_a_party_counts_as_its_seats():
    # A party of three (a, f1, f2) and one lone ticket b: 3 + 1 = 4, Tokaido's recommended size, at once.
    pool = [party("a", friend("f1"), friend("f2"), waited=2), ticket("b", waited=1)]
    assert seated(pool, rec=4) == [("a", "f1", "f2", "b")]


def test_a_party_is_never_split():
    # Recommended 3, nobody at 30 s. Party a+f (2 seats) and lone b, c. Tables of 3 with a: {a, f, b} or
    # {a, f, c} (a party plus two loners is 4). Equal quality; total wait a+f+b = 2·5 + 4 = 14 > 2·5 + 3 = 13.
    pool = [party("a", friend("f"), waited=5), ticket("b", waited=4), ticket("c", waited=3)]
    assert seated(pool, rec=3) == [("a", "f", "b")]


def test_a_party_alone_is_no_table():
    # Four friends in one ticket fill Spades' 4 by themselves, but a table needs at least two tickets.
    pool = [party("a", friend("f1"), friend("f2"), friend("f3"), waited=40, players=(4, 4))]
    assert seated(pool, rec=4, low=4, high=4) == []


def test_the_party_is_matched_on_its_mean_elo():
    # a 1400 and f 1600: mean 1500. b (1640, fresh) is 140 from the mean: within 150 both ways: a table of 3.
    pool = [party("a", friend("f", elo=1600), elo=1400, waited=1), ticket("b", elo=1640)]
    assert seated(pool, rec=3) == [("a", "f", "b")]
    # a 1300 and f 1600: mean 1450, 190 from b: b (fresh, 150) does not accept the party.
    pool = [party("a", friend("f", elo=1600), elo=1300, waited=1), ticket("b", elo=1640)]
    assert seated(pool, rec=3) == []


def test_the_party_tolerance_is_its_tickets_wait():
    # Mean 1450, b at 1640: 190 apart. The party waited 4 s (150 + 40 = 190: accepts b); b waited 4 s too. Both
    # accept: a table of 3. At 3 s (180) neither does.
    pool = [party("a", friend("f", elo=1600), elo=1300, waited=4), ticket("b", elo=1640, waited=4)]
    assert seated(pool, rec=3) == [("a", "f", "b")]
    pool = [party("a", friend("f", elo=1600), elo=1300, waited=3), ticket("b", elo=1640, waited=3)]
    assert seated(pool, rec=3) == []


@pytest.mark.parametrize(("member_blocks", "outsider_blocks"), [(("b",), ()), ((), ("f",))])
def test_a_block_between_a_party_member_and_another_player_prevents_the_table(member_blocks, outsider_blocks):
    pool = [party("a", friend("f", blocked=member_blocks), waited=5), ticket("b", waited=4, blocked=outsider_blocks)]
    assert seated(pool, rec=3) == []


def test_a_block_inside_the_party_is_no_obstacle():
    pool = [party("a", friend("f", blocked=("a",)), waited=5, blocked=["f"]), ticket("b", waited=4)]
    assert seated(pool, rec=3) == [("a", "f", "b")]


def test_same_ip_inside_the_party_is_allowed_even_when_someone_refuses():
    # a and f play from one home and f refuses same-IP tables: the refusal is about others, never the party.
    # The table forms and still warns the others that a and f share an address.
    pool = [party("a", friend("f", ip="home", refuses=True), ip="home", waited=5), ticket("b", waited=4)]
    tables = match(pool, NOW, recommended=3, game_min=2, game_max=5)
    assert [t.players for t in tables] == [("a", "f", "b")]
    assert tables[0].warnings == (TableWarning("same_ip", ("a", "f")),)


def test_a_refusal_in_the_party_keeps_out_others_sharing_an_ip():
    # f (in a's party) refuses same-IP tables; b and c share an IP between themselves: {a, f, b, c} is refused,
    # and before 30 s only the recommended 4 forms.
    pool = [
        party("a", friend("f", refuses=True), waited=5),
        ticket("b", waited=4, ip="cafe"),
        ticket("c", waited=3, ip="cafe"),
    ]
    assert seated(pool, rec=4) == []


def test_an_outsider_sharing_an_ip_with_a_member_is_refused_when_someone_refuses():
    pool = [party("a", friend("f", ip="home"), waited=5), ticket("b", waited=4, ip="home", refuses=True)]
    assert seated(pool, rec=3) == []


def test_each_members_range_counts_the_party_seats():
    # c allows at most 3 players; the party (2) + b + c would be 4: c cannot join. Before 30 s only 4 forms.
    pool = [party("a", friend("f"), waited=5), ticket("b", waited=4), ticket("c", waited=3, players=(2, 3))]
    assert seated(pool, rec=4) == []


def test_total_wait_counts_every_seated_player():
    # x waited 40 s (any size allowed); recommended 3 with everyone a newcomer, so every table of 3 has the same
    # quality. {x, party p+g (10 s each)} waits 40 + 10 + 10 = 60 in total; {x, y (15 s), z (1 s)} waits 56.
    # The party's table wins: each of its players waited 10 s.
    pool = [
        ticket("x", waited=40, players=(3, 3)),
        party("p", friend("g"), waited=10),
        ticket("y", waited=15),
        ticket("z", waited=1),
    ]
    assert seated(pool, rec=3)[0] == ("x", "p", "g")


def test_quality_takes_every_party_member_as_a_player():
    # Served a (mu 25, sigma 3) has two possible pairs' worth of seats: party b+g (both mu 25) or party c+h (mu
    # 25 and 35). The table's quality is that of all three players: (25, 25, 25) beats (25, 25, 35).
    even = quality([(25, 3), (25, 3), (25, 3)])
    uneven = quality([(25, 3), (25, 3), (35, 3)])
    assert even > uneven
    pool = [
        ticket("a", waited=20, skill=(25, 3)),
        party("c", friend("h", skill=(35, 3)), waited=15, skill=(25, 3)),
        party("b", friend("g", skill=(25, 3)), waited=5, skill=(25, 3)),
    ]
    assert seated(pool, rec=3) == [("a", "b", "g")]
