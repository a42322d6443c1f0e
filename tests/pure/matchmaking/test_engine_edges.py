"""Edges of the engine that random small pools never reach, worked by hand. Mostly the bounded search of
docs/matchmaking.md ("Fairness"): the served ticket picks among the 8 compatible tickets nearest in Elo (of two
equally near, the lower), found by examining at most 200 tickets outward from its Elo. Mutation testing
(docs/testing.md) found both figures and the tie unpinned: a pool of a few tickets never reaches them.
"""

from __future__ import annotations

import pytest

from matchmaking.engine import Ticket, match, quality

NOW = 20_000.0
# TrueSkill: the served ticket and the "even" ticket are the same rating, so theirs is the best pair there is;
# the "fair" ones are a newcomer's rating, a less even pair with the served ticket
# (quality sqrt(2·beta² / (v_a + v_b)): 0.55 against 0.81 for two "EVEN", beta = 25 / 6).
EVEN = (25.0, 3.0)
FAIR = (25.0, 25.0 / 3)


def ticket(
    name: str, elo: float, *, waited: float = 0.0, skill: tuple[float, float] = FAIR, players: tuple[int, int] = (2, 2)
) -> Ticket:
    return Ticket(
        id=f"t-{name}",
        player=name,
        ip_hash=f"ip-{name}",
        elo=elo,
        skill=skill,
        min_players=players[0],
        max_players=players[1],
        refuses_same_ip=False,
        queued_at=NOW - waited,
    )


def pairs(pool: list[Ticket]) -> list[tuple[str, ...]]:
    """Tables of two (the game takes only two): the recommended size, whatever anyone waited."""
    return [table.players for table in match(pool, NOW, recommended=2, game_min=2, game_max=2)]


def test_quality_favours_the_even_ticket():
    # The premise of the tests below, with nobody out of reach: "a" (served first, it waited 5 s) pairs with
    # "even" at 90 Elo rather than the nearer but less even "f0".
    assert pairs([ticket("a", 1500, waited=5, skill=EVEN), ticket("f0", 1510), ticket("even", 1590, skill=EVEN)]) == [
        ("a", "even")
    ]


@pytest.mark.parametrize(
    ("nearer", "with_even"),
    [
        (7, True),  # 7 nearer fair tickets: "even" is the 8th nearest, a candidate, and the best pair
        (8, False),  # 8 nearer: "even" is the 9th, never considered; one of the fair ones is taken
    ],
)
@pytest.mark.parametrize("a_blocks", [False, True])  # a plain crowd, or one judged pair by pair
def test_only_the_8_nearest_compatible_tickets_are_candidates(nearer, with_even, a_blocks):
    # "a" waited 5 s: tolerance 200; the others are fresh, 150, and every gap is at most 90.
    pool = [ticket("a", 1500, waited=5, skill=EVEN), ticket("even", 1590, skill=EVEN)]
    if a_blocks:
        pool[0] = _ticket("a", 1500, queued_at=NOW - 5, min_players=2, max_players=2, blocked=frozenset({"zed"}))
    pool += [ticket(f"f{i}", 1510 + 10 * i) for i in range(nearer)]
    first = pairs(pool)[0]
    assert first[0] == "a" and (first[1] == "even") == with_even


@pytest.mark.parametrize(
    ("even_at", "with_even"),
    [
        (1410, True),  # 90 below, level with "f-level" 90 above: the lower is taken first, as the 8th candidate
        (1590, False),  # 90 above, level with "f-level" 90 below: "f-level" is the 8th; "even" is left out
    ],
)
def test_of_two_equally_near_tickets_the_lower_is_the_candidate(even_at, with_even):
    pool = [
        ticket("a", 1500, waited=5, skill=EVEN),
        ticket("even", even_at, skill=EVEN),
        ticket("f-level", 3000 - even_at),
    ]
    pool += [ticket(f"f{i}", 1510 + 10 * i) for i in range(7)]
    first = pairs(pool)[0]
    assert first[0] == "a" and (first[1] == "even") == with_even


@pytest.mark.parametrize(
    ("in_between", "tables"),
    [
        (199, [("a", "b")]),  # "b" is the 200th ticket examined: found
        (200, []),  # the 201st: never reached, from "a" (above it) nor from "b" (below it)
    ],
)
def test_at_most_200_tickets_are_examined(in_between, tables):
    # Between "a" and "b" fresh tickets that want 3 to 5 players: incompatible with "a" and "b" (2 only), and
    # unable to sit together (a fresh ticket takes only the recommended size, 2). All within 150 Elo.
    pool = [ticket("a", 1400, waited=1), ticket("b", 1545)]
    pool += [ticket(f"x{i:03d}", 1400 + 0.5 * (i + 1), players=(3, 5)) for i in range(in_between)]
    assert [t.players for t in match(pool, NOW, recommended=2, game_min=2, game_max=5)] == tables


def test_quality_of_one_player_is_refused_with_the_count():
    # TrueSkill has no match quality for a single side: the message says how many players it was given.
    with pytest.raises(ValueError, match=r"^match quality needs at least 2 players, got 1$"):
        quality([(25.0, 3.0)])


def _ticket(name: str, elo: float, **fields) -> Ticket:
    """A fresh lone player who takes only tables of three, with the served ticket's rating unless told."""
    base = {
        "id": f"t-{name}",
        "player": name,
        "ip_hash": f"ip-{name}",
        "elo": elo,
        "skill": EVEN,
        "min_players": 3,
        "max_players": 3,
        "refuses_same_ip": False,
        "queued_at": NOW,
    }
    return Ticket(**{**base, **fields})


def threes(pool: list[Ticket]) -> list[set[str]]:
    return [set(table.players) for table in match(pool, NOW, recommended=3, game_min=3, game_max=3)]


@pytest.mark.parametrize(
    ("b_at", "c_at", "d_at"),
    [
        (1450, 1600, 1525),  # "b" nearer to "a" than "c"
        (1400, 1550, 1475),  # "c" nearer
    ],
)
def test_two_table_mates_exactly_at_their_tolerance_fit(b_at, c_at, d_at):
    # "b" (fresh: tolerance 150) and "c" (waited 2 s: 170) are 150 apart: within both tolerances, so "a" (served
    # first, waited 10 s) gets a, b, c, the only table it has: it blocks "d". Were b and c refused, "c" (served
    # next) would take the more even c, b, d ("a" is a newcomer's rating). "b" blocks somebody absent, so that the
    # candidates' pairs are judged one by one, not as a plain crowd.
    pool = [
        _ticket("a", 1500, queued_at=NOW - 10, skill=FAIR, blocked=frozenset({"d"})),
        _ticket("b", b_at, blocked=frozenset({"zed"})),
        _ticket("c", c_at, queued_at=NOW - 2),
        _ticket("d", d_at),
    ]
    assert threes(pool)[0] == {"a", "b", "c"}


@pytest.mark.parametrize(
    ("b_fields", "c_fields"),
    [
        ({"reputation": 80.0}, {"min_reputation": 80.0}),
        ({"min_reputation": 80.0}, {"reputation": 80.0}),
    ],
)
def test_a_reputation_equal_to_a_table_mates_minimum_meets_it(b_fields, c_fields):
    # "Never seated with a player whose reputation is below it": 80 is not below 80. "d" is a less even third
    # (a newcomer's sigma) who blocks somebody absent, so that every pair of candidates is judged one by one.
    pool = [
        _ticket("a", 1500, queued_at=NOW - 1),
        _ticket("b", 1510, **b_fields),
        _ticket("c", 1520, **c_fields),
        _ticket("d", 1530, skill=FAIR, blocked=frozenset({"zed"})),
    ]
    assert threes(pool)[0] == {"a", "b", "c"}


@pytest.mark.parametrize(("a_refuses", "others_refuse"), [(True, False), (False, True)])
def test_tickets_a_same_ip_refusal_keeps_away_take_no_candidate_place(a_refuses, others_refuse):
    # Eight fresh tickets nearest to "a" share its address, and one side refuses that: none of them may sit with
    # "a", so they are not among its 8 candidates, and "x" (90 away, its own address) is.
    pool = [ticket("a", 1500, waited=5), ticket("x", 1590)]
    pool[0] = Ticket(
        **{**{f: getattr(pool[0], f) for f in Ticket.__slots__}, "ip_hash": "shared", "refuses_same_ip": a_refuses}
    )
    pool += [
        Ticket(
            id=f"t-s{i}",
            player=f"s{i}",
            ip_hash="shared",
            elo=1510 + 10 * i,
            skill=FAIR,
            min_players=2,
            max_players=2,
            refuses_same_ip=others_refuse,
            queued_at=NOW,
        )
        for i in range(8)
    ]
    assert pairs(pool)[0] == ("a", "x")


def test_the_30s_rule_counts_an_older_ticket_seated_by_a_younger_one():
    # "a" (waited 40 s) is served first but its 8 nearest are "f0".."f7", who block each other and take 3 or 4
    # players: no table among them, and "x" (140 above, waited 5 s) is not a candidate of "a". "x" is then served
    # and takes "a" and an "f" to a table of 3, not the recommended 4: allowed because "a", one of its members,
    # has waited 30 s, though "x" has not.
    names = {f"f{i}" for i in range(8)}
    pool = [_ticket("a", 1500, queued_at=NOW - 40, min_players=2, max_players=4), _ticket("x", 1640, queued_at=NOW - 5)]
    pool += [
        _ticket(f"f{i}", 1501 + i, min_players=3, max_players=4, blocked=frozenset(names - {f"f{i}"})) for i in range(8)
    ]
    formed = [set(table.players) for table in match(pool, NOW, recommended=4, game_min=2, game_max=4)]
    assert len(formed) == 1 and {"a", "x"} < formed[0] and len(formed[0]) == 3


@pytest.mark.parametrize(("b_at", "c_at"), [(1650, 1700), (1350, 1300)])
def test_a_ticket_exactly_at_the_served_tickets_tolerance_is_a_candidate(b_at, c_at):
    # All fresh (tolerance 150), served in id order: "a" first, 150 from "b": within, so a and b pair. Were "b"
    # out of reach, "b" would take "c" (50 away; "a" blocks "c").
    pool = [
        _ticket("a", 1500, min_players=2, max_players=2, blocked=frozenset({"c"})),
        _ticket("b", b_at, min_players=2, max_players=2),
        _ticket("c", c_at, min_players=2, max_players=2),
    ]
    assert [table.players for table in match(pool, NOW, recommended=2, game_min=2, game_max=2)] == [("a", "b")]


def test_a_recommended_size_outside_the_game_is_refused_with_the_range():
    with pytest.raises(ValueError, match=r"^recommended size 6 outside the game's 2\.\.5$"):
        match([], NOW, recommended=6, game_min=2, game_max=5)


def test_a_ticket_twice_in_the_pool_is_refused_with_a_message():
    one = _ticket("a", 1500)
    with pytest.raises(ValueError, match=r"^a ticket id appears more than once in the pool$"):
        match([one, one], NOW, recommended=3, game_min=3, game_max=3)


@pytest.mark.parametrize(
    ("a_waited", "b_waited", "gap", "seated"),
    [
        (65.0, 100.0, 800.0, True),  # 150 + 10·65 = 800: the cap reached exactly, both ways
        (64.9, 100.0, 800.0, False),  # a accepts 799 only
        (600.0 - 1e-6, 100.0, 800.0, True),  # capped at 800, never more
        (600.0 - 1e-6, 100.0, 800.5, False),
        (-3.0, 0.0, 150.0, True),  # queued 3 s ahead of the pass's clock: no wait, 150 exactly
        (-3.0, 0.0, 150.5, False),
    ],
)
def test_the_pass_uses_the_documented_tolerance_at_its_edges(a_waited, b_waited, gap, seated):
    # docs/matchmaking.md: 150 + 10 per second waited, at most 800; a negative wait counts as none. The pass
    # computes every ticket's tolerance once (matchmaking/engine/state.py), not through rules.tolerance().
    pool = [ticket("a", 1500.0, waited=a_waited), ticket("b", 1500.0 + gap, waited=b_waited)]
    assert [set(table) for table in pairs(pool)] == ([{"a", "b"}] if seated else [])
