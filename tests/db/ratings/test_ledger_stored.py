"""The stored rating ledger (docs/ratings.md, "Where rating points come from"): the small season worked by hand in
the docs, through the API, the Elo stage, a reset and a void; then the property: over random games with quits,
floors, resets and voids, every day's ledger adds up to how far the stored ratings moved that day, and the
sources that can be counted from outside (quit penalties, resets, refunds) are exactly what was counted."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.models import Game, Player
from ratings import economy
from ratings.models import LedgerDay, Rating, RatingChange
from ratings.rebuild import title_rebuild
from ratings.resets import rating_reset
from tests.conftest import game_body, player
from tests.db.ratings.bodies import random_bodies
from tests.db.ratings.helpers import ensure_hanabot_table, post, rate_all, rolled_back

DAY1 = datetime(2026, 11, 1, 12, tzinfo=UTC)


@pytest.fixture
def clock(monkeypatch):
    """The ledger's clock (the day a change is applied), moved by hand."""
    now = SimpleNamespace(at=DAY1)
    monkeypatch.setattr(economy, "timezone", SimpleNamespace(now=lambda: now.at))
    return now


def _tokaido(*entries: tuple[str, int, bool]) -> dict:
    """A Tokaido body: (player, score, quit) per seat."""
    return game_body("tokaido", [player(n, s, achievements=0, **({"quit": True} if q else {})) for n, s, q in entries])


def _ledger(title: str) -> dict[tuple[int, str], tuple[float, float]]:
    """(day of November, source) -> (created, destroyed), rounded to 4 decimals as the docs write them."""
    return {
        (row.day.day, row.source): (round(row.created, 4), round(row.destroyed, 4))
        for row in LedgerDay.objects.filter(title=title)
    }


def test_the_small_season_of_the_docs_by_hand(api, settings, clock):
    settings.ELO_FLOOR = 1440.0
    first = api.post("/api/v1/games/", _tokaido(("A", 40, False), ("B", 30, False)), format="json")
    assert first.status_code == 201, first.content
    rate_all(titles=["tokaido"])
    clock.at = DAY1 + timedelta(days=1)
    api.post("/api/v1/games/", _tokaido(("A", 40, False), ("B", 30, True)), format="json")
    rate_all(titles=["tokaido"])
    rating_reset(player=Player.objects.get(handle="A"), titles=["tokaido"])
    # Day 1: A +30, B −30. Day 2: E(1470, 1530) = 0.414501; A +24.8701; B −24.8701 − 10 stopped at 1440 by the
    # floor (+4.8701); A reset 1554.8701 → 1500 (−54.8701).
    assert _ledger("tokaido") == {
        (1, "duel"): (30.0, -30.0),
        (2, "duel"): (24.8701, -24.8701),
        (2, "quit_penalty"): (0.0, -10.0),
        (2, "floor"): (4.8701, 0.0),
        (2, "reset"): (0.0, -54.8701),
    }
    # Day 3: day 1's game voided. The replay: B's quit against a new A gives A +30 (reset later) and B −40 → 1460.
    # A: void_refund −30, moved 0, rebuild +30. B: void_refund +30, moved +20, rebuild −10.
    clock.at = DAY1 + timedelta(days=2)
    Game.objects.filter(pk=first.json()["id"]).update(status=Game.Status.VOID)
    moves = title_rebuild(title="tokaido")
    # What a void's explanation shows per player (A moved 0 in all, so it is not among the moves).
    b = Player.objects.get(handle="B").pk
    assert list(moves) == [b]
    assert {s: round(v, 4) for s, v in moves[b].sources.items()} == {"void_refund": 30.0, "rebuild": -10.0}
    day3 = {source: flow for (day, source), flow in _ledger("tokaido").items() if day == 3}
    assert day3 == {"void_refund": (30.0, -30.0), "rebuild": (30.0, -10.0)}
    assert dict(Rating.objects.filter(title="tokaido").values_list("player__handle", "elo")) == {
        "A": 1500.0,
        "B": 1460.0,
    }
    # Over the three days the pool lost exactly what the two ratings are below 1500: 40 points.
    net = sum(row.created + row.destroyed for row in LedgerDay.objects.filter(title="tokaido"))
    assert net == pytest.approx(-40.0, abs=1e-9)


TITLES = ("wizard", "hanabi", "spades")


def _moved(title: str, initial: float) -> float:
    """How far the title's stored ratings are from the start, all players together (no row = at the start)."""
    return sum(elo - initial for elo in Rating.objects.filter(title=title).values_list("elo", flat=True))


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(seed=st.integers(0, 2**32 - 1), floor=st.sampled_from([None, 1450.0, 1480.0]))
def test_every_day_the_stored_ledger_adds_up(api, settings, clock, seed, floor):
    ensure_hanabot_table()  # a transactional test before this one on the same worker flushed it
    settings.ELO_FLOOR = floor
    rnd = random.Random(seed)
    with rolled_back():
        LedgerDay.objects.all().delete()
        moved = {title: 0.0 for title in TITLES}
        counted: dict[tuple[int, str, str], float] = defaultdict(float)  # (day, title, source) counted outside
        for day in range(1, rnd.randint(2, 4) + 1):
            clock.at = DAY1 + timedelta(days=day - 1)
            for _ in range(rnd.randint(1, 3)):
                _random_step(api, rnd, day, counted)
            ledger = _ledger_net(day)
            for title in TITLES:
                now = _moved(title, 1500.0)
                assert abs(ledger.get(title, 0.0) - (now - moved[title])) <= 1e-9
                moved[title] = now
            for (on, title, source), amount in counted.items():
                if on == day:
                    row = LedgerDay.objects.filter(day=clock.at.date(), title=title, source=source).first()
                    net = row.created + row.destroyed if row else 0.0
                    assert abs(net - amount) <= 1e-9, (title, source)
        if floor is None:
            assert not LedgerDay.objects.filter(source="floor").exists()


def _ledger_net(day: int) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for row in LedgerDay.objects.filter(day=(DAY1 + timedelta(days=day - 1)).date()):
        out[row.title] += row.created + row.destroyed
    return out


def _random_step(api, rnd: random.Random, day: int, counted: dict) -> None:
    """Games (some with a quitter), a reset or a void; what can be counted from outside goes to ``counted``."""
    roll = rnd.random()
    if roll < 0.15 and Rating.objects.filter(title__in=TITLES).exists():
        rating = rnd.choice(list(Rating.objects.filter(title__in=TITLES)))
        counted[(day, rating.title, "reset")] += 1500.0 - rating.elo
        rating_reset(player=rating.player, titles=[rating.title])
    elif roll < 0.3 and Game.objects.filter(title__in=TITLES, status=Game.Status.RATED).exists():
        game = rnd.choice(list(Game.objects.filter(title__in=TITLES, status=Game.Status.RATED)))
        deltas = RatingChange.objects.filter(game=game).values_list("delta", flat=True)
        counted[(day, game.title, "void_refund")] += -sum(deltas)
        Game.objects.filter(pk=game.pk).update(status=Game.Status.VOID)
        title_rebuild(title=game.title)
    else:
        games = random_bodies(rnd, rnd.randint(1, 8), titles=TITLES, pool=8, prefix="s")
        for body in games:
            if body["game"] != "hanabi" and body.get("rated", True) and any(p.get("quit") for p in body["players"]):
                counted[(day, body["game"], "quit_penalty")] -= 10.0
        post(api, games)
        rate_all(titles=TITLES)
