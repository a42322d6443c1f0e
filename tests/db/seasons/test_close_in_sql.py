"""The close as the database runs it (``seasons.store.close_postgres``: one sort, windows, two INSERT ... SELECT)
against the pure rules it restates (``seasons.rules.standings`` and ``carry_over``, docs/seasons.md "Standings" and
"Carry-over"), over random seasons with every league, placement players, shared keys and banned players."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from itertools import pairwise

import pytest
from django.db import connection

from arena.models import Player
from seasons import rules
from seasons.models import Season, SeasonEntry, SeasonFinal
from seasons.services import season_open, season_rollover

NOW = datetime(2026, 10, 6, 12, tzinfo=UTC)
END = datetime(2027, 1, 4, tzinfo=UTC)

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="the close in SQL is PostgreSQL's")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_close_in_sql_is_the_rules(seed):
    rnd = random.Random(seed)
    season = season_open(title="wizard", now=NOW)
    players = [Player.objects.create(handle=f"c{seed}-{i}") for i in range(rnd.randint(40, 90))]
    entries, elo = [], {}
    for p in players:
        league = rnd.choice([None, 0, 0, 1, 2, 3, 4, 5, 5])
        points = 0 if league is None else rnd.choice([rules.THRESHOLDS[league], rules.THRESHOLDS[league] + 10])
        if league is not None:
            points += rnd.choice([0, 0, 5, 17])
        rating = rnd.choice([1500.0, 1530.0, 1494.87, 1612.25])
        entries.append(rules.Entry(p.id, points, 7, 0 if league is not None else 1, league))
        elo[p.id] = rating
    banned = {p.id for p in rnd.sample(players, 3)}
    Player.objects.filter(id__in=banned).update(status=Player.Status.BANNED)
    SeasonEntry.objects.bulk_create(
        [
            SeasonEntry(
                season=season,
                player_id=e.player_id,
                points=e.points,
                games=e.games,
                placement_left=e.placement_left,
                league=e.league,
                elo=elo[e.player_id],
                elo_games=7,
                tier=rules.order_key(e.league, e.points, elo[e.player_id])[0],
                score=rules.order_key(e.league, e.points, elo[e.player_id])[1],
            )
            for e in entries
        ]
    )
    want = rules.standings(entries, elo, excluded=banned)
    assert any(a.rank == b.rank for a, b in pairwise(want)), "no shared rank drawn"
    assert any(r.relegation for r in want)
    assert season_rollover(title="wizard", now=END) is not None
    got = list(
        SeasonFinal.objects.filter(season=season)
        .order_by("rank", "player_id")
        .values_list("player_id", "rank", "league", "points", "games", "placement_left", "season_elo", "relegation")
    )
    assert got == [
        (r.player_id, r.rank, r.league, r.points, r.games, r.placement_left, r.season_elo, r.relegation) for r in want
    ]
    following = Season.objects.get(title="wizard", number=2)
    carried = dict(SeasonEntry.objects.filter(season=following).values_list("player_id", "carried"))
    assert carried == rules.carry_over(want)
