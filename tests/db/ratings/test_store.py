"""The rating store's seam: one interface, both backends keep it, and on PostgreSQL (where both can run) they read
and write exactly the same rows."""

from __future__ import annotations

import inspect
import random

import pytest
from django.db import connection

import ratings.store
from arena.models import Game
from ratings.models import Rating, RatingChange, RatingStage
from ratings.rebuild import title_replay
from ratings.store import RatingStore, store
from ratings.store.portable import BatchPortableStore
from ratings.store.postgres import BatchPostgresStore
from ratings.trueskill_batch import trueskill_stage_run
from tests.db.ratings.bodies import random_bodies
from tests.db.ratings.helpers import post, rate_all, rolled_back, skill_all

INTERFACE = [name for name, _ in inspect.getmembers(RatingStore, inspect.isfunction) if not name.startswith("_")]


@pytest.mark.parametrize("backend", [BatchPostgresStore, BatchPortableStore])
def test_each_backend_has_every_method_of_the_interface_with_its_signature(backend):
    assert len(INTERFACE) == 12  # with reputation's append_outcomes and update_cooldowns; TrueSkill reads rated_games
    for name in INTERFACE:
        assert inspect.signature(getattr(backend, name)) == inspect.signature(getattr(RatingStore, name)), name


@pytest.mark.django_db
def test_the_backend_is_the_connected_databases():
    expected = BatchPostgresStore if connection.vendor == "postgresql" else BatchPortableStore
    assert type(store()) is expected
    assert store() is store()


def _stored() -> tuple:
    """Everything the stages write, keyed by what does not depend on sequences (ids of rolled-back rows)."""
    return (
        sorted(Rating.objects.values_list("player_id", "title", "elo", "games", "last_game_at", "ts_mu", "ts_sigma")),
        sorted(
            RatingChange.objects.values_list(
                "title",
                "seq",
                "player_id",
                "game_id",
                "kind",
                "before",
                "after",
                "delta",
                "k",
                "games_before",
                "place",
                "finished_at",
                "opponent",
            )
        ),
        sorted(Game.objects.values_list("id", "status", "rating_seq")),
        sorted(RatingStage.objects.values_list("title", "stage", "last_seq")),
    )


def _reads(db: RatingStore) -> tuple:
    players = set(Rating.objects.values_list("player_id", flat=True))
    return (
        db.pending_games(title="wizard", limit=50, deck_key=None),
        db.pending_games(title="hanabi", limit=50, deck_key="deck"),
        db.rated_games(title="wizard", after_seq=3, limit=20, deck_key=None),
        db.rated_games(title="hanabi", after_seq=None, limit=20, deck_key="deck"),
        {pid: (s.rating_id, s.elo, s.games) for pid, s in db.elo_states(title="wizard", player_ids=players).items()},
        {pid: (s.rating_id, s.skill) for pid, s in db.skill_states(title="wizard", player_ids=players).items()},
    )


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="only PostgreSQL runs both backends")
def test_on_postgresql_both_backends_read_and_write_the_same_rows(api, monkeypatch):
    post(api, random_bodies(random.Random(21), 160, titles=("wizard", "hanabi", "spades"), pool=12))
    backends = {"postgres": BatchPostgresStore(), "portable": BatchPortableStore()}
    outcomes = {}
    for name, backend in backends.items():
        monkeypatch.setattr(ratings.store, "_backend", lambda vendor, backend=backend: backend)
        with rolled_back():
            rate_all(limit=17, titles=("wizard", "hanabi", "spades"))
            skill_all(limit=11, titles=("wizard",))
            assert title_replay(title="wizard", check=True).mismatches == []
            assert title_replay(title="hanabi", check=True).mismatches == []
            outcomes[name] = _stored()
    assert outcomes["postgres"] == outcomes["portable"]
    assert len(outcomes["postgres"][1]) > 300  # the run rated something worth comparing
    # Reads over a half-rated state (some pending, some rated, TrueSkill behind): the same rows, the same values.
    with rolled_back():
        monkeypatch.setattr(ratings.store, "_backend", lambda vendor: backends["postgres"])
        rate_all(limit=20, titles=("wizard", "hanabi"))
        post(api, random_bodies(random.Random(22), 60, titles=("wizard", "hanabi"), pool=12))
        trueskill_stage_run(title="wizard", limit=5)
        assert _reads(backends["postgres"]) == _reads(backends["portable"])
