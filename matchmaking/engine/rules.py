"""The rules' constants and the rules between two tickets (tolerance, acceptance, expiry), TrueSkill quality, and
what a minimum reputation keeps away: each a plain function the pass, the selectors and the tests share."""

from __future__ import annotations

import math
from collections.abc import Sequence

from matchmaking.engine.tickets import Ticket, lowest_reputation, strictest_minimum
from ratings.skill import ENV

# A fresh ticket accepts table-mates this far from its own Elo: close enough for an even game.
TOLERANCE_BASE = 150.0
# Each second of waiting widens the tolerance by this much, so waiting always buys a match eventually.
TOLERANCE_PER_SECOND = 10.0
# Never wider than this: beyond 800 Elo the weaker player has under 1% chance, which is no game.
TOLERANCE_MAX = 800.0
# Once the oldest member of a candidate table has waited this long, sizes other than the recommended one are
# accepted: a smaller table now beats a full table later.
ANY_SIZE_AFTER = 30.0
# A ticket waiting this long expires (10 minutes): the player has most likely left.
EXPIRES_AFTER = 600.0
# A table needs at least two players, even in games that allow one: a solo game needs no matchmaking, and
# TrueSkill has no quality for a single side.
MIN_TABLE = 2
# Compatible tickets nearest in Elo that the served ticket considers: bounds the tables tried per size at
# C(8, size - 1), at most 70. 10 would find slightly more even six-player tables at four times the cost.
CANDIDATES = 8
# Tickets examined outward from the served ticket's Elo to find those candidates: bounds the scan when many
# nearby tickets are incompatible (blocked, same IP, other sizes). Those a minimum reputation keeps apart are passed
# over, not examined (``bands``), so a minimum never shortens the reach of the scan.
SCAN_LIMIT = 200
# Qualities equal to this many decimals count as equal, so that floating-point noise never overrides the
# total-wait rule between tables that are equally even.
QUALITY_DIGITS = 9

# The one environment the ratings stage computes (mu, sigma) with: quality is only meaningful with the beta those
# ratings were made under. Its draw probability plays no part in match quality.
BETA_SQ = ENV.beta**2


def tolerance(waited: float) -> float:
    """Elo gap a ticket accepts after ``waited`` seconds: ``150 + 10·w``, at most 800.

    A negative wait (a ticket stamped by a clock slightly ahead of the caller's) counts as no wait.
    """
    return min(TOLERANCE_MAX, TOLERANCE_BASE + TOLERANCE_PER_SECOND * max(0.0, waited))


def accepts(a: Ticket, b: Ticket, now: float) -> bool:
    """Whether ``a`` accepts ``b`` on Elo alone (a party on its mean Elo). One direction only: a table needs it
    both ways."""
    return abs(a.strength - b.strength) <= tolerance(now - a.queued_at)


def is_expired(ticket: Ticket, now: float) -> bool:
    """Whether the ticket has waited 10 minutes; an expired ticket is never matched."""
    return now - ticket.queued_at >= EXPIRES_AFTER


def expired(pool: Sequence[Ticket], now: float) -> list[Ticket]:
    """The tickets the caller should mark expired, in pool order."""
    return [ticket for ticket in pool if is_expired(ticket, now)]


def quality(skills: Sequence[tuple[float, float]]) -> float:
    """TrueSkill match quality of a free-for-all table (every player a side of one): ``ENV.quality`` exactly.

    Why not call ``ENV.quality``: the package builds and inverts matrices in pure Python, 80 µs for three players
    and 700 µs for six, which would make a pass over a large pool take seconds. For sides of one the matrices
    reduce to sums (the comparison matrix spans the differences of skills, whatever order it takes them in):
    with ``v_i = beta² + sigma_i²`` and weights ``u_i = 1 / v_i``,

        quality = sqrt(prod(beta² · u_i) · n / (beta² · sum(u_i))) · exp(-sum(u_i · (mu_i - m)²) / 2),

    ``m`` being the u-weighted mean of the mus. A unit test checks it against ``ENV.quality`` on random tables.
    """
    if len(skills) < MIN_TABLE:
        raise ValueError(f"match quality needs at least {MIN_TABLE} players, got {len(skills)}")
    weights = [1.0 / (BETA_SQ + sigma * sigma) for _, sigma in skills]
    total = sum(weights)
    mean = sum(u * mu for u, (mu, _) in zip(weights, skills, strict=True)) / total
    spread = sum(u * (mu - mean) ** 2 for u, (mu, _) in zip(weights, skills, strict=True))
    shrink = math.prod(BETA_SQ * u for u in weights) * len(skills) / (BETA_SQ * total)
    return math.sqrt(shrink) * math.exp(-0.5 * spread)


def minimum_excludes(ticket: Ticket, pool: Sequence[Ticket], now: float) -> int:
    """How many waiting tickets of ``pool`` the ticket would accept, and be accepted by, on every rule between two
    tickets (Elo both ways, table sizes, blocks, same-IP refusals) but its own minimum reputation: what the GET of a
    waiting ticket reports as kept away by that minimum. Rules about a whole table are not judged here."""
    if strictest_minimum(ticket) == -math.inf:
        return 0
    mine = set(ticket.players)
    my_blocked = ticket.blocked.union(*(m.blocked for m in ticket.party))
    my_ips = {ticket.ip_hash, *(m.ip_hash for m in ticket.party)}
    my_refusal = ticket.refuses_same_ip or any(m.refuses_same_ip for m in ticket.party)
    minimum, my_low = strictest_minimum(ticket), lowest_reputation(ticket)
    count = 0
    for other in pool:
        if other.id == ticket.id or is_expired(other, now):
            continue
        players = set(other.players)
        if players & mine or not (accepts(ticket, other, now) and accepts(other, ticket, now)):
            continue
        if max(ticket.min_players, other.min_players) > min(ticket.max_players, other.max_players):
            continue
        if my_blocked & players or other.blocked.union(*(m.blocked for m in other.party)) & mine:
            continue
        ips = {other.ip_hash, *(m.ip_hash for m in other.party)}
        refusal = my_refusal or other.refuses_same_ip or any(m.refuses_same_ip for m in other.party)
        if refusal and ips & my_ips:
            continue
        if strictest_minimum(other) > my_low:
            continue  # the other ticket's own minimum, not this one's
        if lowest_reputation(other) < minimum:
            count += 1
    return count
