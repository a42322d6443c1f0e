"""The matchmaking rules of docs/matchmaking.md, pass by pass. Every expected table is worked out by hand from the
spec (the arithmetic is in the comments), never read off the code's output. Pure: no database."""

from __future__ import annotations

import gc
import random
from collections.abc import Iterable, Sequence

import pytest
import trueskill

from matchmaking.engine import (
    Table,
    TableWarning,
    Ticket,
    accepts,
    expired,
    match,
    quality,
    tolerance,
)

NOW = 10_000.0
DEFAULT_SKILL = (25.0, 25.0 / 3)


def ticket(
    name: str,
    *,
    elo: float = 1500.0,
    waited: float = 0.0,
    skill: tuple[float, float] = DEFAULT_SKILL,
    players: tuple[int, int] = (2, 5),
    ip: str | None = None,
    refuses: bool = False,
    blocked: Iterable[str] = (),
) -> Ticket:
    """A ticket of player ``name`` (id ``t-<name>``) that has waited ``waited`` seconds at NOW; own IP by default."""
    return Ticket(
        id=f"t-{name}",
        player=name,
        ip_hash=ip or f"ip-{name}",
        elo=elo,
        skill=skill,
        min_players=players[0],
        max_players=players[1],
        refuses_same_ip=refuses,
        queued_at=NOW - waited,
        blocked=frozenset(blocked),
    )


def run(pool: Sequence[Ticket], rec: int = 3, low: int = 2, high: int = 5) -> list[Table]:
    return match(pool, NOW, recommended=rec, game_min=low, game_max=high)


def seated(pool: Sequence[Ticket], rec: int = 3, low: int = 2, high: int = 5) -> list[tuple[str, ...]]:
    """The players of each table formed, each table longest-waiting first."""
    return [table.players for table in run(pool, rec, low, high)]


# ---- Tolerance ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("waited", "gap"),
    [
        (0, 150),  # 150 + 10·0
        (10, 250),  # 150 + 10·10
        (30, 450),  # 150 + 10·30
        (65, 800),  # 150 + 10·65 = 800, exactly the cap
        (100, 800),  # 150 + 10·100 = 1150, capped at 800
        (600, 800),
    ],
)
def test_tolerance_grows_10_per_second_from_150_up_to_800(waited, gap):
    assert tolerance(waited) == gap


def test_acceptance_is_one_directional():
    # a waited 5 s: 150 + 50 = 200 >= |1500 - 1700| = 200. b waited 0 s: 150 < 200.
    a = ticket("a", elo=1500, waited=5)
    b = ticket("b", elo=1700, waited=0)
    assert accepts(a, b, NOW)
    assert not accepts(b, a, NOW)


def test_players_200_apart_are_not_matched_while_fresh():
    # Both waited 0 s: tolerance 150 < 200.
    assert seated([ticket("a", elo=1500), ticket("b", elo=1700)], rec=2) == []


def test_players_200_apart_are_matched_once_both_waited_5s():
    # Both waited 5 s: 150 + 10·5 = 200 >= 200, both ways. Size 2 is the recommended size here.
    pool = [ticket("a", elo=1500, waited=5), ticket("b", elo=1700, waited=5)]
    assert seated(pool, rec=2) == [("a", "b")]


@pytest.mark.parametrize("b_waited", [0, 4])
def test_one_patient_player_is_not_enough(b_waited):
    # a accepts b (150 + 50 = 200 >= 200) but b does not accept a: 150 + 0 = 150 or 150 + 40 = 190, < 200.
    pool = [ticket("a", elo=1500, waited=5), ticket("b", elo=1700, waited=b_waited)]
    assert seated(pool, rec=2) == []


def test_every_member_must_accept_every_other_not_only_the_oldest():
    # a waited 25 s (tolerance 400), b and c are fresh (150). a-b: 150 apart, accepted both ways; a-c: 150 apart,
    # accepted both ways; b-c: 300 apart > 150. The recommended 3 is impossible, and nobody has waited 30 s, so
    # no other size is allowed: nothing forms.
    pool = [ticket("a", elo=1500, waited=25), ticket("b", elo=1350), ticket("c", elo=1650, waited=1)]
    assert seated(pool, rec=3) == []


def test_every_member_must_accept_every_other_after_30s_too():
    # a waited 30 s (tolerance 450): any size is allowed for a table with a. {a, b, c} is still invalid
    # (b-c 300 apart, b's tolerance 150, c's 150 + 10 = 160), so the table is a pair: a-b and a-c are equally even
    # (same skills), total wait a+c = 30 + 1 = 31 > a+b = 30 + 0 = 30, so a sits with c; c accepts a: 150 <= 160.
    pool = [ticket("a", elo=1500, waited=30), ticket("b", elo=1350), ticket("c", elo=1650, waited=1)]
    assert seated(pool, rec=3) == [("a", "c")]


# ---- Size ------------------------------------------------------------------------------------------------


def test_recommended_size_while_everyone_waited_under_30s():
    # Five compatible tickets, oldest 10 s < 30 s: only the recommended 3 is allowed. a (10 s) is served first;
    # all skills equal, so the longest total wait decides: a+b+c = 10 + 8 + 6 = 24 beats every other trio with a.
    # d and e are left: two tickets cannot make 3, and neither has waited 30 s.
    pool = [ticket(name, waited=w) for name, w in [("a", 10), ("b", 8), ("c", 6), ("d", 4), ("e", 2)]]
    assert seated(pool, rec=3) == [("a", "b", "c")]


def test_smaller_table_once_the_oldest_waited_30s():
    # Game 2-5, recommended 3, only two tickets. The oldest has waited 30 s: size 2 is accepted.
    assert seated([ticket("a", waited=30), ticket("b", waited=0)], rec=3) == [("a", "b")]


def test_no_smaller_table_at_29s():
    # 29 s < 30 s: only the recommended 3, and there are only two tickets.
    assert seated([ticket("a", waited=29), ticket("b", waited=0)], rec=3) == []


def test_larger_table_preferred_after_30s():
    # Four compatible tickets, oldest 30 s, game 2-5, recommended 3: any size is accepted, the largest wins: 4.
    pool = [ticket(name, waited=w) for name, w in [("a", 30), ("b", 20), ("c", 10), ("d", 0)]]
    assert seated(pool, rec=3) == [("a", "b", "c", "d")]


def test_recommended_size_before_30s_with_four_waiting():
    # Same four, but the oldest waited 29 s: only 3. Trios with a: a+b+c = 29 + 20 + 10 = 59 > a+b+d = 49 >
    # a+c+d = 39, so d waits.
    pool = [ticket(name, waited=w) for name, w in [("a", 29), ("b", 20), ("c", 10), ("d", 0)]]
    assert seated(pool, rec=3) == [("a", "b", "c")]


def test_larger_preferred_up_to_the_game_maximum():
    # Six compatible tickets, oldest 35 s, game 2-5: the largest table is 5. Equal skills, so the longest total
    # wait picks the five: leaving out f (10 s) gives 35 + 30 + 25 + 20 + 15 = 125, more than leaving out anyone
    # else. f waits alone (10 s, and nobody left to sit with).
    pool = [ticket(name, waited=w) for name, w in [("a", 35), ("b", 30), ("c", 25), ("d", 20), ("e", 15), ("f", 10)]]
    assert seated(pool, rec=3) == [("a", "b", "c", "d", "e")]


def test_a_table_needs_two_players_even_when_the_game_allows_one():
    # Railroad Ink allows 1-6; a lone ticket that allows 1 and waited 40 s is still not given a table of one.
    assert seated([ticket("a", waited=40, players=(1, 6))], rec=4, low=1, high=6) == []


def test_recommended_size_outside_the_game_limits_is_refused():
    with pytest.raises(ValueError):
        match([], NOW, recommended=6, game_min=2, game_max=5)


# ---- Each member's player-count range ----------------------------------------------------------------------


def test_ticket_with_max_2_waits_while_only_3_is_allowed():
    # a allows 2 only; nobody has waited 30 s, so only the recommended 3 can form and a cannot be seated. a does
    # not block the younger tickets: b is served next and b+c+d = 8 + 6 + 4 form the table.
    pool = [ticket("a", waited=10, players=(2, 2)), ticket("b", waited=8), ticket("c", waited=6), ticket("d", waited=4)]
    assert seated(pool, rec=3) == [("b", "c", "d")]


def test_ticket_with_max_2_is_never_placed_at_a_table_of_3():
    # Everyone waited >= 30 s, so larger would be preferred, but a allows 2 only: a is served first and gets a pair;
    # a+b = 40 + 39 = 79 > a+c = 78. c is left alone.
    pool = [ticket("a", waited=40, players=(2, 2)), ticket("b", waited=39), ticket("c", waited=38)]
    assert seated(pool, rec=3) == [("a", "b")]


def test_ticket_with_min_4_is_not_placed_at_a_table_of_3():
    # Three tickets, a needs 4 or more: a cannot be seated. b (41 s) is served next; {b, c, a} is refused by a's
    # minimum, so b and c form a pair (any size after 30 s).
    pool = [ticket("a", waited=42, players=(4, 5)), ticket("b", waited=41), ticket("c", waited=40)]
    assert seated(pool, rec=3) == [("b", "c")]


def test_the_30s_rule_counts_only_the_tables_own_members():
    # a (40 s) needs 4 or more and cannot be seated. b and c waited 10 s and 8 s: the pair {b, c} is not the
    # recommended 3 and its oldest member waited 10 s < 30 s, so it does not form, although a waited 40 s.
    pool = [ticket("a", waited=40, players=(4, 5)), ticket("b", waited=10), ticket("c", waited=8)]
    assert seated(pool, rec=3) == []


# ---- Blocks and IPs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("a_blocks", "b_blocks"), [(["b"], []), ([], ["a"])])
def test_a_block_in_either_direction_prevents_the_table(a_blocks, b_blocks):
    pool = [ticket("a", waited=5, blocked=a_blocks), ticket("b", waited=5, blocked=b_blocks)]
    assert seated(pool, rec=2) == []


def test_a_block_between_two_other_members_prevents_the_table():
    # a, the served ticket, blocks nobody, but b blocked c: {a, b, c} is refused, and before 30 s only 3 forms.
    pool = [ticket("a", waited=10), ticket("b", waited=5, blocked=["c"]), ticket("c", waited=5)]
    assert seated(pool, rec=3) == []


def test_shared_ip_without_refusal_forms_with_a_warning():
    tables = run([ticket("a", waited=5, ip="home"), ticket("b", waited=4, ip="home")], rec=2)
    assert [table.players for table in tables] == [("a", "b")]
    assert tables[0].warnings == (TableWarning("same_ip", ("a", "b")),)


def test_one_warning_per_shared_ip():
    # a, b share "home"; c, d share "cafe": two warnings, each naming its own players; e is on its own IP.
    pool = [
        ticket("a", waited=5, ip="home"),
        ticket("b", waited=4, ip="home"),
        ticket("c", waited=3, ip="cafe"),
        ticket("d", waited=2, ip="cafe"),
        ticket("e", waited=1),
    ]
    tables = run(pool, rec=5)
    assert [table.players for table in tables] == [("a", "b", "c", "d", "e")]
    assert set(tables[0].warnings) == {TableWarning("same_ip", ("a", "b")), TableWarning("same_ip", ("c", "d"))}


def test_no_warning_without_a_shared_ip():
    tables = run([ticket("a", waited=5), ticket("b", waited=4)], rec=2)
    assert tables[0].warnings == ()


@pytest.mark.parametrize("refuser", ["a", "b"])
def test_same_ip_refused_by_either_member(refuser):
    pool = [
        ticket("a", waited=5, ip="home", refuses=refuser == "a"),
        ticket("b", waited=4, ip="home", refuses=refuser == "b"),
    ]
    assert seated(pool, rec=2) == []


def test_same_ip_refused_by_a_third_member():
    # a and b share an IP and do not mind; c (own IP) refuses same-IP tables, so {a, b, c} is refused.
    pool = [ticket("a", waited=5, ip="home"), ticket("b", waited=4, ip="home"), ticket("c", waited=3, refuses=True)]
    assert seated(pool, rec=3) == []


def test_same_ip_pair_at_a_table_of_3_when_nobody_refuses():
    pool = [ticket("a", waited=5, ip="home"), ticket("b", waited=4, ip="home"), ticket("c", waited=3)]
    tables = run(pool, rec=3)
    assert [table.players for table in tables] == [("a", "b", "c")]
    assert tables[0].warnings == (TableWarning("same_ip", ("a", "b")),)


# ---- Fairness ----------------------------------------------------------------------------------------------


def test_the_longest_waiting_ticket_gets_the_contested_seat():
    # x (1500, 1 s: tolerance 160) can sit with a or with b: both are 140 away, within 160, and a (350) and b
    # (250) accept x. a and b cannot sit together: 280 apart, b's 250 < 280. a waited longest, so a gets x.
    pool = [ticket("b", elo=1360, waited=10), ticket("x", elo=1500, waited=1), ticket("a", elo=1640, waited=20)]
    assert seated(pool, rec=2) == [("a", "x")]


def test_the_contested_seat_follows_the_wait_not_the_player():
    # The same, ages swapped: b (20 s) is now the oldest and gets x; a (10 s: 250 < 280) cannot sit with b.
    pool = [ticket("a", elo=1640, waited=10), ticket("x", elo=1500, waited=1), ticket("b", elo=1360, waited=20)]
    assert seated(pool, rec=2) == [("b", "x")]


def test_an_unmatchable_oldest_ticket_does_not_block_younger_ones():
    # o waited 100 s (tolerance 800) but is 1500 from everyone: never seated. a and b still form their pair.
    pool = [ticket("o", elo=3000, waited=100), ticket("a", waited=2), ticket("b", waited=1)]
    assert seated(pool, rec=2) == [("a", "b")]


def test_a_player_never_sits_with_themself():
    # One open ticket per player and game is the service's rule; should two slip into a pool, they never pair.
    twin = Ticket(
        id="t-a2",
        player="a",
        ip_hash="ip-a",
        elo=1500.0,
        skill=DEFAULT_SKILL,
        min_players=2,
        max_players=5,
        refuses_same_ip=False,
        queued_at=NOW - 4,
    )
    assert seated([ticket("a", waited=5), twin], rec=2) == []


def test_a_ticket_is_seated_at_most_once():
    # Four compatible tickets, recommended 2, nobody at 30 s: a (4 s) takes b (3 s) by total wait 7, then c takes d.
    pool = [ticket(name, waited=w) for name, w in [("a", 4), ("b", 3), ("c", 2), ("d", 1)]]
    assert seated(pool, rec=2) == [("a", "b"), ("c", "d")]


def test_best_quality_beats_longer_wait():
    # beta² = (25/6)² = 17.36; every sigma is 3, so each v = beta² + 9 = 26.36, and for two players
    # quality = sqrt(2·beta² / (v + v)) · exp(-(mu_1 - mu_2)² / (2·(v + v))).
    # a-b (mu 25 and 25): sqrt(34.72 / 52.72) · exp(0) = 0.8115.
    # a-c (mu 25 and 35): 0.8115 · exp(-100 / 105.44) = 0.8115 · 0.3874 = 0.3144.
    # a-c would have the longer total wait (20 + 15 = 35 > 20 + 5 = 25), but quality comes first.
    pool = [
        ticket("a", waited=20, skill=(25, 3)),
        ticket("c", waited=15, skill=(35, 3)),
        ticket("b", waited=5, skill=(25, 3)),
    ]
    assert seated(pool, rec=2) == [("a", "b")]


@pytest.mark.parametrize(("b_waited", "c_waited", "expected"), [(5, 15, ("a", "c")), (15, 5, ("a", "b"))])
def test_equal_quality_broken_by_longest_total_wait(b_waited, c_waited, expected):
    # b (mu 20) and c (mu 30) are both 5 from a (mu 25), sigmas all 3: both pairs have quality
    # 0.8115 · exp(-25 / 105.44) = 0.8115 · 0.7889 = 0.6402. The pair with the longer total wait wins:
    # a+c = 20 + 15 = 35 > a+b = 20 + 5 = 25 in the first case, and the other way round in the second.
    pool = [
        ticket("a", waited=20, skill=(25, 3)),
        ticket("b", waited=b_waited, skill=(20, 3)),
        ticket("c", waited=c_waited, skill=(30, 3)),
    ]
    assert seated(pool, rec=2) == [expected]


# ---- TrueSkill quality -------------------------------------------------------------------------------------


def test_quality_of_two_players_by_hand():
    # See test_best_quality_beats_longer_wait for the arithmetic.
    assert quality([(25, 3), (25, 3)]) == pytest.approx(0.8115, abs=1e-4)
    assert quality([(25, 3), (35, 3)]) == pytest.approx(0.3144, abs=1e-4)
    assert quality([(25, 3), (20, 3)]) == pytest.approx(0.6402, abs=1e-4)


@pytest.mark.parametrize(("n", "expected"), [(2, 0.2**0.5), (3, 0.2), (4, 0.2**1.5)])
def test_quality_of_new_players(n, expected):
    # Package defaults: sigma = 25/3 and beta = sigma/2, so beta² / (beta² + sigma²) = 1/4 / (1/4 + 1) = 1/5.
    # With equal mus the exponential is 1 and the quality of n equal players is (1/5)^((n - 1) / 2).
    assert quality([DEFAULT_SKILL] * n) == pytest.approx(expected, rel=1e-12)


def test_quality_is_the_trueskill_package_quality():
    # The engine sums instead of inverting matrices; it must give the package's own numbers (default
    # environment, each player a team of one).
    env = trueskill.TrueSkill()
    rng = random.Random(7)
    for _ in range(300):
        skills = [(rng.uniform(0, 50), rng.uniform(0.5, 9)) for _ in range(rng.randint(2, 6))]
        reference = env.quality([(trueskill.Rating(mu, sigma),) for mu, sigma in skills])
        assert quality(skills) == pytest.approx(reference, rel=1e-9, abs=1e-12)


def test_quality_needs_two_players():
    with pytest.raises(ValueError):
        quality([DEFAULT_SKILL])


# ---- Expiry ------------------------------------------------------------------------------------------------


def test_a_ticket_that_waited_10_minutes_expires_and_is_not_matched():
    # a waited 600 s: expired, left out. b (599 s) is served instead and sits with c (same Elo).
    pool = [ticket("a", waited=600), ticket("b", waited=599), ticket("c", waited=0)]
    assert expired(pool, NOW) == [pool[0]]
    assert seated(pool, rec=2) == [("b", "c")]


def test_expired_ticket_alone_with_one_other_is_not_matched():
    pool = [ticket("a", waited=700), ticket("b", waited=0)]
    assert expired(pool, NOW) == [pool[0]]
    assert seated(pool, rec=2) == []


# ---- A large pool, checked against the spec by an independent judge ----------------------------------------


def spec_violation(table: Table, now: float, rec: int, low: int, high: int) -> str | None:
    """The first rule of docs/matchmaking.md the table breaks, or None; written from the spec, not from the engine."""
    members = table.tickets
    n = len(members)
    waits = {m.id: now - m.queued_at for m in members}
    if not max(low, 2) <= n <= high:
        return f"size {n} outside the game's limits"
    for m in members:
        if not m.min_players <= n <= m.max_players:
            return f"size {n} outside {m.player}'s {m.min_players}..{m.max_players}"
        if waits[m.id] >= 600:
            return f"{m.player} had expired"
    if n != rec and max(waits.values()) < 30:
        return f"size {n} is not the recommended {rec} and nobody waited 30 s"
    for x in members:
        for y in members:
            if x is y:
                continue
            if x.player == y.player:
                return f"{x.player} twice"
            if abs(x.elo - y.elo) > min(800, 150 + 10 * waits[x.id]):
                return f"{x.player} does not accept {y.player}"
            if y.player in x.blocked:
                return f"{x.player} blocked {y.player}"
    ips = [m.ip_hash for m in members]
    if any(m.refuses_same_ip for m in members) and len(set(ips)) < n:
        return "shared IP at a table where someone refuses it"
    shared = {ip: {m.player for m in members if m.ip_hash == ip} for ip in ips if ips.count(ip) > 1}
    expected_warnings = sorted(sorted(players) for players in shared.values())
    if sorted(sorted(w.players) for w in table.warnings) != expected_warnings:
        return "wrong same-IP warnings"
    if any(w.code != "same_ip" for w in table.warnings):
        return "unknown warning"
    return None


def random_pool(size: int, seed: int, *, elo_spread: float = 300, most: int = 5) -> list[Ticket]:
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(size)]
    pool = []
    for i, name in enumerate(names):
        least = rng.randint(2, 4)
        pool.append(
            Ticket(
                id=f"t{i}",
                player=name,
                ip_hash=f"ip{rng.randrange(size // 3)}",
                elo=rng.gauss(1500, elo_spread),
                skill=(rng.gauss(25, 5), rng.uniform(1, 25 / 3)),
                min_players=least,
                max_players=rng.randint(least, most),
                refuses_same_ip=rng.random() < 0.1,
                queued_at=NOW - rng.uniform(0, 700),
                blocked=frozenset(rng.sample(names, 3)) if rng.random() < 0.1 else frozenset(),
            )
        )
    return pool


@pytest.mark.parametrize(("seed", "elo_spread", "rec", "high"), [(1, 300, 3, 5), (2, 300, 3, 5), (3, 100, 4, 6)])
def test_a_pass_over_3000_tickets_forms_only_valid_tables(seed, elo_spread, rec, high):
    pool = random_pool(3000, seed, elo_spread=elo_spread, most=high)
    tables = run(pool, rec=rec, low=2, high=high)
    assert tables, "a pool this large must form some tables"
    ids = [t.id for table in tables for t in table.tickets]
    assert len(ids) == len(set(ids)), "a ticket was seated twice"
    assert set(ids) <= {t.id for t in pool}
    assert not set(ids) & {t.id for t in expired(pool, NOW)}
    problems = [(table.players, spec_violation(table, NOW, rec, 2, high)) for table in tables]
    assert [p for p in problems if p[1] is not None] == []
    # The pass depends on the tickets, not on the order the pool was read in.
    shuffled = list(pool)
    random.Random(seed).shuffle(shuffled)
    assert run(shuffled, rec=rec, low=2, high=high) == tables


def test_a_pass_leaves_no_reference_cycles_behind():
    # A pass runs with the collector paused (gc_paused): each search once left a cycle holding the whole pass,
    # which the next collection then had to walk, a third of a large pass.
    pool = random_pool(300, 4)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        assert run(pool, rec=3, low=2, high=5)
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
