"""Helpers for the rating-stage tests: post bodies through the API, run the stages to the end."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.db import transaction

from ratings.elo_batch import elo_stage_run
from ratings.trueskill_batch import trueskill_stage_run
from tests.db.ratings.bodies import TITLES


def post(api: Any, bodies: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Record bodies through the batch endpoint, in order; every one must be accepted."""
    out = []
    for start in range(0, len(bodies), 500):
        response = api.post("/api/v1/games/batch/", {"games": list(bodies[start : start + 500])}, format="json")
        assert response.status_code == 200, response.content
        for result in response.json()["results"]:
            assert result["status_code"] == 201, result
            out.append(result["body"])
    return out


def rate_all(limit: int | None = None, titles: Sequence[str] = TITLES) -> int:
    """Run the Elo stage batch after batch until nothing is pending."""
    total = 0
    for title in titles:
        while batch := elo_stage_run(title=title, limit=limit):
            if not batch.games:
                break
            total += batch.games
    return total


def skill_all(limit: int | None = None, titles: Sequence[str] = TITLES) -> int:
    total = 0
    for title in titles:
        while True:
            batch = trueskill_stage_run(title=title, limit=limit)
            if not batch.games:
                break
            total += batch.games
    return total


class _Rollback(Exception):
    pass


@contextmanager
def rolled_back() -> Iterator[None]:
    """Undo everything done inside: isolates hypothesis examples that share one test's database."""
    try:
        with transaction.atomic():
            yield
            raise _Rollback
    except _Rollback:
        pass


def ensure_hanabot_table() -> None:
    """Transactional tests flush every table, the Hanabot rows seeded by migration included: seed them again
    with the migration's own code. (serialized_rollback would restore them too, but clashes with the content
    types another transactional test's flush re-creates.)"""
    from django.apps import apps

    from ratings.models import HanabotRating

    if not HanabotRating.objects.exists():
        importlib.import_module("ratings.migrations.0002_seed_hanabot").seed(apps, None)
