"""The rating economy (docs/ratings.md, "Where rating points come from"): the stored ledger and what reads it.

Every writer of a rating adds its change to the ledger **in its own transaction**, by source
(``ratings.ledger``): the Elo stage (``ledger_batch``), a moderator's reset (``ledger_reset``) and a rebuild
(``ledger_rebuild``: a void's refunds and what the replay of the later games moved). So the ledger of any period
adds up to the sum of every rating change applied in it, and a rolled-back batch leaves no trace in it either.

The day is the UTC day the change was **applied** (not the game's finish): a day's ledger is closed once the day
is over, whatever a game server uploads late, and matches the day's movement of the ratings themselves.

TrueSkill is not in the ledger: it is matchmaking's estimate, never shown as rating points, and creates nothing a
player could lose or win (docs/ratings.md, "TrueSkill").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from django.db import transaction
from django.db.models import F, Sum
from django.utils import timezone

from ratings import ledger
from ratings.models import LedgerDay, PopulationDay
from ratings.plan import ChangeRow, EloPlan, RatedGame
from ratings.store import economy

# The longest history the economy endpoint answers (a year and a bit: the drift alert looks 30 days back).
MAX_DAYS = 400


def ledger_batch(*, title: str, games: Sequence[RatedGame], plan: EloPlan, now: datetime | None = None) -> None:
    """The Elo stage's batch, by source, added to today's ledger (inside the batch's transaction)."""
    flows = ledger.batch_flows(games, plan.changes, config=plan.config, hanabi_rules=plan.hanabi_rules)
    economy.ledger_add(title=title, day=_day(now), flows=flows)


def ledger_reset(*, title: str, changes: Sequence[ChangeRow], now: datetime | None = None) -> None:
    """A moderator's reset rows: the whole move is ``reset``."""
    flows: ledger.Flows = {}
    for row in changes:
        ledger.flows_add(flows, ledger.reset_parts(delta=row.delta))
    economy.ledger_add(title=title, day=_day(now), flows=flows)


def ledger_rebuild(
    *,
    title: str,
    before: Mapping[int, float],
    after: Mapping[int, float],
    void_deltas: Mapping[int, float],
    initial: float,
    now: datetime | None = None,
) -> None:
    """A rebuild's moves: each player's ``void_refund`` (minus what the games voided since the last rebuild had
    changed, ``void_deltas``) and ``rebuild`` (the rest of the move). A player without a rating counts at
    ``initial``, as a rating that was never moved."""
    flows: ledger.Flows = {}
    for player_id in sorted(before.keys() | after.keys() | void_deltas.keys()):
        moved = after.get(player_id, initial) - before.get(player_id, initial)
        ledger.flows_add(flows, ledger.void_parts(refunded=-void_deltas.get(player_id, 0.0), moved=moved))
    economy.ledger_add(title=title, day=_day(now), flows=flows)


def _day(now: datetime | None) -> date:
    return (now or timezone.now()).astimezone(UTC).date()


@dataclass(frozen=True)
class EconomyDay:
    """One day of a title's economy: its active population and its ledger by source."""

    day: date
    active: int | None
    mean: float | None
    median: float | None
    flows: dict[str, ledger.Flow]

    @property
    def net(self) -> float:
        return sum(flow.net for flow in self.flows.values())


def economy_read(*, title: str, days: int, now: datetime | None = None) -> list[EconomyDay]:
    """The last ``days`` UTC days of ``title``, oldest first, today included; today's population is taken live
    (the snapshot of a day is only its last one). Two queries, three for today's population."""
    now = now or timezone.now()
    today = _day(now)
    first = today - timedelta(days=days - 1)
    flows: dict[date, dict[str, ledger.Flow]] = {}
    for day, source, created, destroyed in LedgerDay.objects.filter(title=title, day__gte=first).values_list(
        "day", "source", "created", "destroyed"
    ):
        flows.setdefault(day, {})[source] = ledger.Flow(created, destroyed)
    population = {
        day: (active, mean, median)
        for day, active, mean, median in (
            PopulationDay.objects.filter(title=title, day__gte=first, day__lt=today).values_list(
                "day", "active", "mean", "median"
            )
        )
    }
    population[today] = economy.active_stats(title=title, now=now)
    out = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        active, mean, median = population.get(day, (None, None, None))
        out.append(EconomyDay(day=day, active=active, mean=mean, median=median, flows=flows.get(day, {})))
    return out


def population_snapshot(*, titles: Sequence[str], now: datetime | None = None) -> int:
    """Beat's snapshot of each title's active population into today's row (the last one of a day stays)."""
    now = now or timezone.now()
    today = _day(now)
    with transaction.atomic():
        for title in titles:
            active, mean, median = economy.active_stats(title=title, now=now)
            PopulationDay.objects.update_or_create(
                title=title, day=today, defaults={"active": active, "mean": mean, "median": median, "taken_at": now}
            )
    return len(titles)


def points_by_source() -> dict[tuple[str, str], float]:
    """(title, source) -> the net points of all time: ``arena_rating_points_total`` (one grouped query)."""
    rows = (
        LedgerDay.objects.values("title", "source")
        .annotate(net=Sum(F("created") + F("destroyed")))
        .values_list("title", "source", "net")
    )
    return {(title, source): float(net or 0.0) for title, source, net in rows}
