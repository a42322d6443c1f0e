"""The ratings app's services, for the doors and the apps above (tasks, commands, moderation) in one import.

Each concern lives in its own module: ``ratings.stages`` (the lock and the order every stage keeps),
``ratings.elo_batch``, ``ratings.trueskill_batch``, ``ratings.resets`` and ``ratings.rebuild``; their reads and
writes go through ``ratings.store``. A caller takes none of their locks and reads none of their tables:
``title_rebuild`` locks the title itself and returns whose Elo it moved, and the stages' one reading of their own
lag a run logs (``oldest_pending_age``) is here too, so the tasks need no other module of this app.
"""
from __future__ import annotations

from ratings.config import elo_config
from ratings.cooldowns import cooldown_lift, cooldown_state
from ratings.elo_batch import elo_stage_run, titles_pending
from ratings.lag import oldest_pending_age
from ratings.rebuild import EloMove, Mismatch, RebuildResult, title_rebuild, title_replay, titles_rated
from ratings.resets import ResetResult, rating_reset
from ratings.stages import BatchResult, ratings_announce
from ratings.trueskill_batch import titles_pending_trueskill, trueskill_stage_run

__all__ = [
    "BatchResult",
    "EloMove",
    "Mismatch",
    "RebuildResult",
    "ResetResult",
    "cooldown_lift",
    "cooldown_state",
    "elo_config",
    "elo_stage_run",
    "oldest_pending_age",
    "rating_reset",
    "ratings_announce",
    "title_rebuild",
    "title_replay",
    "titles_pending",
    "titles_pending_trueskill",
    "titles_rated",
    "trueskill_stage_run",
]
