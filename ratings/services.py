"""The ratings app's services, for the doors and the apps above (tasks, commands, moderation) in one import.

Each concern lives in its own module: ``ratings.stages`` (the lock and the order every stage keeps),
``ratings.elo_batch``, ``ratings.trueskill_batch``, ``ratings.resets`` and ``ratings.rebuild``; their reads and
writes go through ``ratings.store``.
"""
from __future__ import annotations

from ratings.config import elo_config
from ratings.cooldowns import cooldown_lift, cooldown_state
from ratings.elo_batch import pending_titles, rate_pending
from ratings.rebuild import Mismatch, RebuildResult, rated_titles, rebuild
from ratings.resets import ResetResult, rating_reset
from ratings.stages import BatchResult, announce_ratings
from ratings.trueskill_batch import rate_trueskill_pending, trueskill_titles

__all__ = [
    "BatchResult",
    "Mismatch",
    "RebuildResult",
    "ResetResult",
    "announce_ratings",
    "cooldown_lift",
    "cooldown_state",
    "elo_config",
    "pending_titles",
    "rate_pending",
    "rate_trueskill_pending",
    "rated_titles",
    "rating_reset",
    "rebuild",
    "trueskill_titles",
]
