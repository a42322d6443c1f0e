"""The Elo and TrueSkill stages against a plain sequential replay of the rules, over random games of every title.

Games go in through the API (so recording's places and sides are part of what is checked) and are rated by
calling the services directly: with the ``db`` fixture nothing commits, so on-commit hand-offs never fire.
"""

from __future__ import annotations

import os
import random

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.models import Game, Player
from ratings.elo_batch import elo_stage_run
from ratings.lag import trueskill_lag
from ratings.models import Rating, RatingChange, RatingStage
from ratings.rebuild import title_replay
from ratings.trueskill_batch import trueskill_stage_run
from tests.db.ratings.bodies import bodies, random_bodies
from tests.db.ratings.helpers import post, rate_all, rolled_back, skill_all
from tests.db.ratings.replay import Replay, assert_matches, game_order_ok, stored_history, stored_ratings

pytestmark = pytest.mark.django_db
# Examples per property; raise it for a long hunt (RATING_EXAMPLES=500 pytest tests/db/ratings).
EXAMPLES = int(os.environ.get("RATING_EXAMPLES", "30"))


def _entry(name: str, score: int, **extra):
    return {"player": name, "ip": f"192.0.2.{sum(map(ord, name)) % 250 + 1}", "score": score, **extra}


def _elo(handle: str, title: str) -> float:
    return Rating.objects.get(player__handle=handle, title=title).elo


# --- properties over random games ------------------------------------------------------------------------------


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(games=bodies(max_size=25), limit=st.integers(1, 4), skill_limit=st.integers(1, 5))
def test_batches_equal_sequential_replay(api, games, limit, skill_limit):
    """Any batch size, any mix of titles: every rating, history row and TrueSkill belief equals the replay's."""
    with rolled_back():
        post(api, games)
        rate_all(limit=limit)
        skill_all(limit=skill_limit)
        replay = Replay()
        replay.play(games)
        assert_matches(replay, trueskill=True)
        game_order_ok()
        assert not Game.objects.filter(status=Game.Status.PENDING).exists()
        assert not trueskill_lag()


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(first=bodies(max_size=12), second=bodies(max_size=12), limit=st.integers(1, 3))
def test_games_arriving_while_rating_are_rated_after_the_earlier_ones(api, first, second, limit):
    """Order of arrival: games recorded between two batches come after everything recorded before them."""
    with rolled_back():
        post(api, first)
        elo_stage_run(title="wizard", limit=limit)  # a partial run, then more games arrive
        post(api, second)
        rate_all(limit=limit)
        replay = Replay()
        replay.play(first + second)
        assert_matches(replay)
        game_order_ok()


def test_long_random_run_with_large_batches(api):
    games = random_bodies(random.Random(7), 400, pool=15)
    post(api, games)
    rate_all(limit=37)
    replay = Replay()
    replay.play(games)
    assert_matches(replay)
    game_order_ok()


# --- the spec's worked examples, through the API and the batch -------------------------------------------------


def test_worked_examples_through_the_batch(api):
    post(
        api,
        [
            {
                "table_id": "ex1",
                "game": "tokaido",
                "players": [_entry("a", 30, achievements=1), _entry("b", 20, achievements=1)],
            },
            {
                "table_id": "ex2",
                "game": "wizard",
                "players": [_entry("w1", 100), _entry("w2", 60), _entry("w3", 40), _entry("w4", 0)],
            },
            {
                "table_id": "ex7",
                "game": "nile",
                "players": [
                    _entry("n1", 3, crops=[3] * 5),
                    _entry("n2", 2, crops=[2] * 5),
                    _entry("n3", 1, crops=[1] * 5),
                    _entry("n4", 0, crops=[0] * 5, quit=True),
                ],
            },
            {
                "table_id": "ex8",
                "game": "railroad_ink",
                "players": [_entry(f"r{i}", 50 - i, errors=0) for i in range(5)],
            },
            {
                "table_id": "ex9",
                "game": "spades",
                "players": [
                    _entry("sa", 300, team="x"),
                    _entry("sc", 100, team="y"),
                    _entry("sb", 300, team="x"),
                    _entry("sd", 100, team="y"),
                ],
            },
            {"table_id": "ex4", "game": "hanabi", "players": [_entry(f"h{i}", 22) for i in range(3)]},
            {"table_id": "ex5", "game": "hanabi", "players": [_entry(f"k{i}", 12) for i in range(2)]},
        ],
    )
    rate_all()
    assert (_elo("a", "tokaido"), _elo("b", "tokaido")) == (1530.0, 1470.0)
    assert [_elo(f"w{i}", "wizard") for i in range(1, 5)] == [1545.0, 1515.0, 1485.0, 1455.0]
    assert [_elo(f"n{i}", "nile") for i in range(1, 5)] == [1545.0, 1515.0, 1485.0, 1445.0]
    assert [_elo(f"r{i}", "railroad_ink") for i in range(5)] == [1545.0, 1522.5, 1500.0, 1477.5, 1455.0]
    assert [_elo(p, "spades") for p in ("sa", "sb", "sc", "sd")] == [1530.0, 1530.0, 1470.0, 1470.0]
    assert round(_elo("h0", "hanabi") - 1500, 2) == -2.76
    assert round(_elo("k0", "hanabi") - 1500, 2) == -26.81
    change = RatingChange.objects.get(player__handle="h0")
    assert (change.k, change.games_before, change.opponent, change.place) == (60, 0, 1468.0, None)


def test_everyone_tied_counts_as_played(api):
    post(api, [{"table_id": "tie", "game": "wizard", "players": [_entry(n, 40) for n in "xyz"]}])
    rate_all()
    assert {(r.elo, r.games) for r in Rating.objects.all()} == {(1500.0, 1)}
    assert {c.delta for c in RatingChange.objects.all()} == {0.0}


def test_unrated_and_solo_games_are_never_rated(api):
    post(
        api,
        [
            {
                "table_id": "u1",
                "game": "wizard",
                "rated": False,
                "players": [_entry(n, 40 + i) for i, n in enumerate("xyz")],
            },
            {"table_id": "u2", "game": "railroad_ink", "players": [_entry("solo", 30, errors=0)]},
        ],
    )
    assert rate_all() == 0
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert set(Game.objects.values_list("status", flat=True)) == {"unrated"}


# --- exactly once --------------------------------------------------------------------------------------------


def _snapshot():
    return (
        stored_ratings(),
        stored_history(),
        list(Game.objects.order_by("id").values_list("status", "rating_seq")),
        list(RatingStage.objects.order_by("id").values_list("title", "stage", "last_seq")),
    )


def test_running_the_same_batch_twice_changes_nothing(api):
    post(api, random_bodies(random.Random(3), 60, titles=("wizard", "hanabi"), pool=8))
    first = elo_stage_run(title="wizard")
    assert first.games > 0 and first.player_ids
    before = _snapshot()
    again = elo_stage_run(title="wizard")
    assert again.games == 0 and again.player_ids == []
    assert _snapshot() == before
    rate_all()
    skill_all()
    before = _snapshot()
    assert rate_all() == 0 and skill_all() == 0
    assert _snapshot() == before


def test_a_game_cannot_be_applied_twice_even_by_a_buggy_writer(api):
    post(api, random_bodies(random.Random(4), 5, titles=("tokaido",), pool=4))
    rate_all()
    change = RatingChange.objects.filter(kind="game").first()
    change.pk = None
    with pytest.raises(IntegrityError), transaction.atomic():
        change.save()


def test_a_batch_costs_the_same_queries_whatever_its_size(api):
    post(api, random_bodies(random.Random(5), 80, titles=("wizard",), pool=6))
    elo_stage_run(title="wizard", limit=10)  # every player has a rating now: no batch below inserts any
    assert Rating.objects.count() == 6
    with CaptureQueriesContext(connection) as small:
        assert elo_stage_run(title="wizard", limit=3).games == 3
    with CaptureQueriesContext(connection) as large:
        assert elo_stage_run(title="wizard", limit=60).games > 40
    # 12 for the ratings; reputation (docs/matchmaking.md) adds its statements per batch, never per game.
    assert len(large.captured_queries) == len(small.captured_queries) <= 14


def test_a_player_banned_after_recording_is_rated_as_recorded(api):
    post(
        api,
        [
            {
                "table_id": "b1",
                "game": "tokaido",
                "players": [_entry("good", 30, achievements=0), _entry("cheat", 20, achievements=0)],
            }
        ],
    )
    Player.objects.filter(handle="cheat").update(status=Player.Status.BANNED)
    rate_all()
    assert (_elo("good", "tokaido"), _elo("cheat", "tokaido")) == (1530.0, 1470.0)


# --- TrueSkill stage -----------------------------------------------------------------------------------------


def test_trueskill_stage_skips_hanabi_and_follows_rating_order(api):
    games = random_bodies(random.Random(6), 120, pool=10)
    post(api, games)
    rate_all(limit=9)
    # TrueSkill lags: only part of it has run when more Elo batches come.
    trueskill_stage_run(title="wizard", limit=2)
    assert skill_all(limit=7) > 0
    replay = Replay()
    replay.play(games)
    assert_matches(replay, trueskill=True)
    assert not Rating.objects.filter(title="hanabi", ts_mu__isnull=False).exists()
    assert not trueskill_lag()
    stage = RatingStage.objects.get(title="wizard", stage="trueskill")
    assert stage.last_seq == Game.objects.filter(title="wizard", status="rated").order_by("-rating_seq")[0].rating_seq


# --- Hanabot table edits ---------------------------------------------------------------------------------------


def test_hanabot_edit_applies_to_games_rated_afterwards_and_survives_a_rebuild(api):
    from ratings.models import HanabotRating
    from tests.db.ratings.replay import db_table

    def hanabi_game(table_id: str):
        return {
            "table_id": table_id,
            "game": "hanabi",
            "players": [_entry("x", 22), _entry("y", 22)],
            "finished_at": "2025-06-01T12:00:00Z",
        }

    before_edit = [hanabi_game("h1"), hanabi_game("h2")]
    post(api, before_edit)
    rate_all()
    old_table = db_table()
    HanabotRating.objects.filter(variant_class="50", team_size=2, score=22).update(elo=1900.0)
    after_edit = [hanabi_game("h3")]
    post(api, after_edit)
    rate_all()

    replay = Replay()
    replay.play(before_edit, table=old_table)
    replay.play(after_edit)
    assert_matches(replay)
    assert list(RatingChange.objects.filter(player__handle="x").order_by("seq").values_list("opponent", flat=True)) == [
        old_table[("50", 2, 22)],
        old_table[("50", 2, 22)],
        1900.0,
    ]
    # The rebuild replays each game against the bot it met, not today's table.
    assert title_replay(title="hanabi", check=True).mismatches == []
    title_replay(title="hanabi")
    assert_matches(replay)
