"""Celery doors into detection (filled in below the models)."""
from __future__ import annotations

from arena.announcements import RatingsChanged


def on_ratings_changed(fact: RatingsChanged) -> None:
    """Placeholder until detection lands."""
