"""Moderator resets, the rebuild from stored games, and the rebuild_ratings command."""

from __future__ import annotations

import io
import random

import pytest
from django.core.management import CommandError, call_command

import ratings.rebuild
from arena.models import Game, Player
from ratings.models import Rating, RatingChange
from ratings.rebuild import title_rebuild, title_replay
from ratings.resets import rating_reset
from tests.db.ratings.bodies import TITLES, random_bodies
from tests.db.ratings.helpers import post, rate_all, skill_all
from tests.db.ratings.replay import (
    R0,
    Replay,
    assert_matches,
    assert_skills_match,
    close,
    ratable,
    stored_history,
    stored_ratings,
    stored_skills,
)

pytestmark = pytest.mark.django_db


def _everything():
    return stored_ratings(), stored_skills(), stored_history()


def test_rebuild_reproduces_a_long_random_run_with_resets_exactly(api):
    rnd = random.Random(11)
    replay = Replay()
    phases = [random_bodies(rnd, 250, pool=14) for _ in range(3)]
    for number, games in enumerate(phases):
        post(api, games)
        rate_all(limit=rnd.randint(5, 40))
        if number == 1:
            skill_all(limit=13)  # TrueSkill behind Elo when the rebuild runs: only its done prefix is replayed
        replay.play(games)
        if number < 2:
            handle = f"p{rnd.randrange(14)}"
            rating_reset(player=Player.objects.get(handle=handle))
            replay.reset(handle)
    assert_matches(replay)
    assert RatingChange.objects.filter(kind="reset").exists()
    before = _everything()
    for title in TITLES:
        assert title_replay(title=title, check=True).mismatches == []
        result = title_replay(title=title)
        assert result.games == Game.objects.filter(title=title, status="rated").count()
    assert _everything() == before
    # The TrueSkill games still to do are still to do, and the stage carries on exactly.
    assert skill_all() > 0
    replay_skills = Replay()
    for games in phases:
        replay_skills.play(games)
    assert_skills_match(replay_skills)


def test_reset_keeps_games_and_k_and_applies_between_batches(api):
    post(api, random_bodies(random.Random(12), 40, titles=("wizard", "tokaido"), pool=5))
    rate_all()
    player = Player.objects.get(handle="p0")
    played = dict(Rating.objects.filter(player=player).values_list("title", "games"))
    results = rating_reset(player=player)
    assert {r.title for r in results} == set(played)
    for rating in Rating.objects.filter(player=player):
        assert (rating.elo, rating.games) == (1500.0, played[rating.title])
    change = RatingChange.objects.get(player=player, kind="reset", title="wizard")
    assert (change.after, change.games_before, change.game_id, change.k) == (1500.0, played["wizard"], None, None)
    # The reset took the title's next seq: the history's order is the order of application.
    assert change.seq == RatingChange.objects.filter(title="wizard").order_by("-seq")[0].seq
    assert rating_reset(player=Player.objects.create(handle="nobody")) == []


def test_void_then_rebuild_gives_the_points_back(api):
    games = random_bodies(random.Random(13), 80, titles=("wizard",), pool=6)
    post(api, games)
    rate_all()
    voided = games[10]
    while not (voided.get("rated", True)):
        voided = games[games.index(voided) + 1]
    Game.objects.filter(table_id=voided["table_id"]).update(status=Game.Status.VOID)
    title_replay(title="wizard")
    replay = Replay()
    replay.play([g for g in games if g is not voided])
    assert_matches(replay)
    assert not RatingChange.objects.filter(game__table_id=voided["table_id"]).exists()


def test_title_rebuild_returns_whose_elo_moved_before_and_after(api):
    """A void's refunds as ratings reports them: the independent replay with and without the voided game gives each
    player's Elo before and after, and only the players whose Elo it moved are named."""
    games = random_bodies(random.Random(29), 60, titles=("wizard",), pool=6)
    post(api, games)
    rate_all()
    voided = next(g for g in games[5:] if ratable(g))
    full, clean = Replay(), Replay()
    full.play(games)
    clean.play([g for g in games if g is not voided])
    Game.objects.filter(table_id=voided["table_id"]).update(status=Game.Status.VOID)
    moves = title_rebuild(title="wizard")
    ids = dict(Player.objects.values_list("handle", "pk"))
    handles = {h for h, t in full.ratings.keys() | clean.ratings.keys() if t == "wizard"}
    want = {}
    for handle in handles:
        before = full.ratings.get((handle, "wizard"), [None])[0]
        after = clean.ratings.get((handle, "wizard"), [None])[0]
        if abs((after or R0) - (before or R0)) > 1e-6:
            want[ids[handle]] = (before, after, (after or R0) - (before or R0))
    assert want and list(moves) == sorted(moves) and moves.keys() == want.keys()
    for pk, move in moves.items():
        assert close((move.before, move.after, move.delta), want[pk]), (pk, move, want[pk])
    assert_matches(clean)


def test_rebuild_command_shows_progress_and_a_summary(api, monkeypatch):
    monkeypatch.setattr(ratings.rebuild, "PROGRESS_EVERY", 25)
    post(api, random_bodies(random.Random(14), 120, titles=("wizard", "nile"), pool=8))
    rate_all()
    out = io.StringIO()
    call_command("rebuild_ratings", "--game", "wizard", stdout=out)
    text = out.getvalue()
    assert "wizard: rebuilding..." in text
    assert "  wizard: 25/" in text
    assert "rebuilt." in text and "nile" not in text

    out = io.StringIO()
    call_command("rebuild_ratings", "--check", stdout=out)
    assert "wizard:" in out.getvalue() and "nile:" in out.getvalue()
    assert out.getvalue().count("identical to the stored ratings.") == 2

    Rating.objects.filter(title="nile").update(elo=1234.5)
    out = io.StringIO()
    with pytest.raises(CommandError, match="differ"):
        call_command("rebuild_ratings", "--check", "--game", "nile", stdout=out)
    assert "rating " in out.getvalue() and "1234.5" in out.getvalue()
    call_command("rebuild_ratings", "--game", "nile", stdout=io.StringIO())
    call_command("rebuild_ratings", "--check", "--game", "nile", stdout=io.StringIO())

    with pytest.raises(CommandError, match="Unknown game"):
        call_command("rebuild_ratings", "--game", "chess", stdout=io.StringIO())
