"""The live standings equal a replay of the season from scratch at every moment (docs/seasons.md "Exactness"):
random seasons of every title, rated in random batch sizes, with voids (the title rebuilt) and bans in between."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.models import Game, Player
from ratings.elo_batch import elo_stage_run
from ratings.rebuild import title_rebuild
from seasons.models import Season
from seasons.services import season_follow, season_open, season_replay_live, season_titles
from tests.db.ratings.bodies import TITLES, bodies
from tests.db.ratings.helpers import post, rolled_back
from tests.db.seasons.helpers import live_rows, live_state, replayed_rows, replayed_state

# The bodies' games finish within 2025-01-01 + 347 days; a 200-day season leaves some outside it.
NOW = datetime(2025, 3, 1, tzinfo=UTC)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    games=bodies(max_size=30),
    steps=st.lists(st.tuples(st.integers(1, 4), st.integers(0, 5)), min_size=1, max_size=12),
    data=st.data(),
)
def test_live_standings_equal_the_replay_at_every_moment(api, settings, games, steps, data):
    settings.SEASON_LENGTH_DAYS = 200
    with rolled_back():
        post(api, games)
        opened = {title: season_open(title=title, now=NOW) for title in season_titles()}
        for limit, event in steps:
            for title in TITLES:
                batch = elo_stage_run(title=title, limit=limit)
                season_follow(title=title, game_ids=[])
                assert batch is not None
            if event == 0:  # a void: ratings rebuild the title, the season replays
                rated = list(Game.objects.filter(status=Game.Status.RATED).order_by("id").values_list("id", "title"))
                if rated:
                    game_id, title = data.draw(st.sampled_from(rated))
                    Game.objects.filter(pk=game_id).update(status=Game.Status.VOID)
                    title_rebuild(title=title)
                    season_replay_live(title=title)
            elif event == 1:  # a ban, then maybe an unban: the standings follow at once
                player = data.draw(st.sampled_from(list(Player.objects.order_by("id"))))
                player.status = data.draw(st.sampled_from([Player.Status.BANNED, Player.Status.ACTIVE]))
                player.save(update_fields=["status"])
            for title, season in opened.items():
                season = Season.objects.get(pk=season.pk)
                assert live_rows(season) == replayed_rows(season), title
                assert live_state(season) == replayed_state(season), title
