"""The rating ledger's rules (docs/ratings.md, "Where rating points come from"): pure, no Django, no I/O.

Every movement of a rating is split into parts, each named by its **source**, so that the parts of one movement
add up to it (the last part is what remains, so the sum is the movement up to one rounding of a double):

- a competitive game: ``duel`` (the pairwise terms, zero-sum within a game when no rule intervenes), then
  ``quit_penalty`` (minus the penalty, on the quitter alone) and ``floor`` (what the floor gave back);
- a Hanabi game: ``hanabot`` (the team against the bot), then ``floor``;
- a moderator's reset: ``reset``;
- a void: ``void_refund`` (the void game's own change, given back to each of its players) and ``rebuild`` (the rest of
  what replaying the title without the game moved, for every player whose rating moved).

Per title and per day, the ledger is the sum of the parts of each source, split into points created (positive
parts) and destroyed (negative parts). Why keep both and not only the net: a source that creates as much as it
destroys (``duel``) is healthy; one that only destroys (``quit_penalty``) is how a pool deflates.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date

from ratings.elo import EloConfig
from ratings.plan import ChangeRow, EloPlan, HanabiRules, PlayerState, RatedGame

DUEL = "duel"
HANABOT = "hanabot"
QUIT_PENALTY = "quit_penalty"
FLOOR = "floor"
RESET = "reset"
VOID_REFUND = "void_refund"
REBUILD = "rebuild"
SOURCES = (DUEL, HANABOT, QUIT_PENALTY, FLOOR, RESET, VOID_REFUND, REBUILD)


def game_parts(*, delta: float, unfloored: float, penalty: float, cooperative: bool = False) -> dict[str, float]:
    """One player's change in a rated game, by source; zero parts left out.

    ``delta`` is the stored change; ``unfloored`` what it would have been without the floor (terms minus the
    penalty, the explanation's ``terms_sum - quit_penalty``); ``penalty`` the quit penalty this player paid (0 for
    everyone but a quitter). The floor's part is ``delta - unfloored``; the game's own part is what remains.
    """
    floor = delta - unfloored
    parts = {QUIT_PENALTY: -penalty, FLOOR: floor}
    parts[HANABOT if cooperative else DUEL] = delta - floor + penalty
    return {source: amount for source, amount in parts.items() if amount != 0.0}


def reset_parts(*, delta: float) -> dict[str, float]:
    """A moderator's reset moves the rating to the start: the whole move is ``reset``."""
    return {RESET: delta} if delta != 0.0 else {}


def void_parts(*, refunded: float, moved: float) -> dict[str, float]:
    """One player's correction when a game is voided and the title rebuilt.

    ``refunded`` is minus the void game's stored change for this player (0 if they did not play it); ``moved`` is
    the player's rating after the rebuild minus before it. The rest of the move, ``moved - refunded``, is what the
    replay of the later games changed: ``rebuild``.
    """
    parts = {VOID_REFUND: refunded, REBUILD: moved - refunded}
    return {source: amount for source, amount in parts.items() if amount != 0.0}


# Per source, [created, destroyed]: what one transaction adds to the ledger of its title and day.
Flows = dict[str, list[float]]


def flows_add(flows: Flows, parts: Mapping[str, float]) -> None:
    """Add one change's parts to ``flows`` (positive parts to created, negative to destroyed)."""
    for source, amount in parts.items():
        if source not in SOURCES:
            raise ValueError(f"unknown ledger source {source!r}")
        flow = flows.setdefault(source, [0.0, 0.0])
        flow[0 if amount > 0 else 1] += amount


def batch_flows(
    games: Sequence[RatedGame], changes: Sequence[ChangeRow], *, config: EloConfig, hanabi_rules: HanabiRules | None
) -> Flows:
    """The ledger of one Elo batch: ``changes`` are the plan's rows of ``games``, one per seat in seat order.

    Most rows are the game's own part alone (``duel``, or ``hanabot`` for a cooperative title) and are summed
    straight away; a quitter's row gives the penalty back to its ``duel`` part. A row that ends on the floor is
    the rare one: its game is rated again without the floor (``unfloored``) to know what the floor gave back.
    """
    main = HANABOT if hanabi_rules is not None else DUEL
    penalty = 0.0 if hanabi_rules is not None else config.quit_penalty
    floor = config.floor
    created = destroyed = paid = 0.0
    flows: Flows = {}
    start = 0
    for game in games:
        seats = game.seats
        end = start + len(seats)
        rows = changes[start:end]
        start = end
        if floor is not None and any(row.after == floor for row in rows):
            for parts in _floored_parts(game, rows, penalty, config, hanabi_rules):
                flows_add(flows, parts)
            continue
        for row, seat in zip(rows, seats):  # noqa: B905 - one row per seat by construction
            delta = row.delta
            if seat[3] and penalty:
                delta += penalty
                paid -= penalty
            if delta > 0:
                created += delta
            else:
                destroyed += delta
    if start != len(changes):
        raise ValueError("the batch's rows do not match its games' seats")
    if created or destroyed:
        flow = flows.setdefault(main, [0.0, 0.0])
        flow[0] += created
        flow[1] += destroyed
    if paid:
        flows.setdefault(QUIT_PENALTY, [0.0, 0.0])[1] += paid
    return flows


def _floored_parts(
    game: RatedGame, rows: Sequence[ChangeRow], penalty: float, config: EloConfig, hanabi_rules: HanabiRules | None
) -> list[dict[str, float]]:
    """Each row's parts for a game a floor may have stopped: the same game rated from the same standings by the
    same plan with no floor gives each player's unfloored delta (bit for bit the rule's own sum)."""
    states = {row.player_id: PlayerState(None, row.before, row.games_before) for row in rows}
    plan = EloPlan(states=states, config=replace(config, floor=None), hanabi_rules=hanabi_rules)
    plan.apply_game(game, 0, opponent=rows[0].opponent)
    unfloored = {row.player_id: row.delta for row in plan.changes}
    return [
        game_parts(
            delta=row.delta,
            unfloored=unfloored[row.player_id],
            penalty=penalty if seat[3] else 0.0,
            cooperative=hanabi_rules is not None,
        )
        for row, seat in zip(rows, game.seats, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class Flow:
    """Points created (sum of positive parts) and destroyed (sum of negative parts, a negative number)."""

    created: float = 0.0
    destroyed: float = 0.0

    @property
    def net(self) -> float:
        return self.created + self.destroyed


def daily(entries: Iterable[tuple[date, Mapping[str, float]]]) -> dict[date, dict[str, Flow]]:
    """Per day, per source, the points created and destroyed by ``(day, parts)`` entries."""
    sums: dict[date, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    for day, parts in entries:
        for source, amount in parts.items():
            if source not in SOURCES:
                raise ValueError(f"unknown ledger source {source!r}")
            sums[day][source][0 if amount > 0 else 1] += amount
    return {day: {source: Flow(c, d) for source, (c, d) in by_source.items()} for day, by_source in sums.items()}


def median(values: Iterable[float]) -> float | None:
    """The middle rating (mean of the two middle ones for an even count); None for no active player."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        return None
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2.0
