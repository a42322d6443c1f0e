"""Exact query counts of the player page, GET /api/v1/players/{player}/ (issue 17): the same whatever the number of
games the player is rated in and of rated games played, on SQLite and on PostgreSQL alike.

The page is one query for the player with every rating and the reputation (``ratings.selectors.player_profile``), then
the ranks (``leaderboards.selectors.ranks_of``): the database board answers every game with a board in one more
query, the Redis board with no query at all (a round trip of its own per board). Hanabi has no board and costs
nothing. No transaction, no savepoint: the page only reads.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.models import Player
from infra import mode
from leaderboards.services import board_rebuild
from ratings.models import Rating
from tests.db.ratings.builders import game_history, make_player

pytestmark = pytest.mark.django_db

URL = "/api/v1/players/{}/"
BOARD_TITLES = ["nile", "railroad_ink", "spades", "tokaido", "wizard"]
PAGE = 1  # the player LEFT JOIN ratings LEFT JOIN reputation
RANKS_FROM_THE_DATABASE = 1


@pytest.fixture
def database_board(settings):
    """The database board answers (the embedded mode's, and the fallback of a lost Redis board), whether or not
    this run has Redis: the figure is the database board's either way."""
    settings.REDIS_URL = ""
    assert not mode.redis_configured()


def ranked_in(handle: str, titles: list[str], *, above: int = 0) -> Player:
    """``handle`` ranked on each board of ``titles`` (10 games, one a day ago), ``above`` + i players above them
    in the i-th title, so their rank there is ``above`` + i + 1."""
    recent = timezone.now() - timedelta(days=1)
    player = make_player(handle)
    for i, title in enumerate(titles):
        Rating.objects.create(player=player, title=title, elo=1500.0, games=10, last_game_at=recent)
        for j in range(above + i):
            better = Player.objects.get_or_create(handle=f"{title[:4]}-{j}")[0]
            Rating.objects.create(player=better, title=title, elo=1600.0 + j, games=10, last_game_at=recent)
    return player


def page(anon, handle: str) -> dict:
    response = anon.get(URL.format(handle))
    assert response.status_code == 200, response.json()
    return response.json()


@pytest.mark.parametrize("titles", [BOARD_TITLES[:1], BOARD_TITLES], ids=["one-game", "five-games"])
def test_ranked_on_every_board(db, anon, database_board, django_assert_num_queries, titles):
    ranked_in("ada", titles, above=2)
    with django_assert_num_queries(PAGE + RANKS_FROM_THE_DATABASE):
        body = page(anon, "ada")
    # Two players above in the first title, one more in each next: ranks 3, 4, 5, ...
    assert {t: e["rank"] for t, e in body["ratings"].items()} == {t: 3 + i for i, t in enumerate(titles)}


def test_hanabi_beside_the_boards_costs_nothing(db, anon, database_board, django_assert_num_queries):
    ada = ranked_in("ada", BOARD_TITLES)
    Rating.objects.create(player=ada, title="hanabi", elo=1550.0, games=10, last_game_at=timezone.now())
    with django_assert_num_queries(PAGE + RANKS_FROM_THE_DATABASE):
        body = page(anon, "ada")
    assert body["ratings"]["hanabi"]["rank"] is None and body["ratings"]["wizard"]["rank"] == 5


def test_only_hanabi_asks_no_board(db, anon, database_board, django_assert_num_queries):
    Rating.objects.create(player=make_player("bea"), title="hanabi", elo=1550.0, games=10, last_game_at=timezone.now())
    with django_assert_num_queries(PAGE):
        assert page(anon, "bea")["ratings"]["hanabi"]["rank"] is None


def test_no_rating_at_all(db, anon, database_board, django_assert_num_queries):
    make_player("cy")
    with django_assert_num_queries(PAGE):
        assert page(anon, "cy")["ratings"] == {}


@pytest.mark.parametrize("played", [1, 30])
def test_the_number_of_rated_games_played_changes_nothing(
    db, anon, server, database_board, django_assert_num_queries, played
):
    # The history rows are the history page's (tests/db/ratings/test_history.py); this page reads the ratings
    # alone. Ranked nowhere: the board's query runs and finds no eligible rating (too few games, or none recent).
    dee = make_player("dee")
    game_history(server, dee, "wizard", played)
    Rating.objects.create(player=dee, title="wizard", elo=1500.0 + 10 * played, games=played)
    with django_assert_num_queries(PAGE + RANKS_FROM_THE_DATABASE):
        body = page(anon, "dee")
    assert body["ratings"]["wizard"]["games"] == played and body["ratings"]["wizard"]["rank"] is None


def test_a_banned_player_costs_the_same(db, anon, database_board, django_assert_num_queries):
    ranked_in("eve", BOARD_TITLES)
    Player.objects.filter(handle="eve").update(status=Player.Status.BANNED)
    with django_assert_num_queries(PAGE + RANKS_FROM_THE_DATABASE):
        body = page(anon, "eve")
    assert {e["rank"] for e in body["ratings"].values()} == {None}
    assert {e["not_ranked"]["reason"] for e in body["ratings"].values()} == {"banned"}


@pytest.mark.skipif(not mode.redis_configured(), reason="the Redis board needs REDIS_URL")
@pytest.mark.parametrize("titles", [BOARD_TITLES[:1], BOARD_TITLES], ids=["one-game", "five-games"])
def test_the_redis_board_answers_without_a_query(db, anon, django_assert_num_queries, titles):
    ranked_in("fay", titles, above=1)
    for title in titles:
        board_rebuild(title=title)  # the boards as a worker keeps them (Redis is emptied around each test)
    with django_assert_num_queries(PAGE):
        body = page(anon, "fay")
    assert {t: e["rank"] for t, e in body["ratings"].items()} == {t: 2 + i for i, t in enumerate(titles)}
