"""The database board's filter mirrors ``leaderboards.board.is_eligible``: same players on random data.

The Redis board's mirror (its syncs and its Lua read script) is held to the same function against real Redis in
tests/services/test_leaderboard_redis.py.
"""

from __future__ import annotations

import random

import pytest
from django.utils import timezone

from arena.models import Player
from leaderboards.board import MIN_GAMES, active_cutoff, is_eligible
from leaderboards.db_board import DbBoard
from ratings.models import Rating
from tests.db.leaderboards.helpers import expected_ids, random_ratings


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_sql_filter_admits_exactly_whom_the_rule_admits(db, seed):
    now = timezone.now()
    cutoff = active_cutoff(now)
    ratings = random_ratings(random.Random(seed), count=120, cutoff=cutoff)
    expected = expected_ids(ratings, cutoff)
    # The data reaches every branch of the rule, so a mirror that drops one of its parts cannot pass.
    assert 0 < len(expected) < len(ratings)
    assert set(DbBoard("wizard", now=now).eligible().values_list("player_id", flat=True)) == expected
    # The banned-id subquery form (what a rank uses) gives the same players.
    board = DbBoard("wizard", now=now)
    subquery = Player.objects.filter(status=Player.Status.BANNED).values_list("pk", flat=True)
    assert set(board.eligible(banned=subquery).values_list("player_id", flat=True)) == expected


def test_a_player_whose_last_game_is_exactly_the_cutoff_is_off_the_board(db):
    now = timezone.now()
    cutoff = active_cutoff(now)
    player = Player.objects.create(handle="edge")
    Rating.objects.create(player=player, title="wizard", elo=1500.0, games=MIN_GAMES, last_game_at=cutoff)
    assert not is_eligible(games=MIN_GAMES, last_game_at=cutoff, banned=False, cutoff=cutoff)
    assert not DbBoard("wizard", now=now).eligible().exists()
