"""The writes of ``Game`` rows that other apps ask for: the core owns the row kind, the others call here.

Recording creates games (``arena/recording.py``) and the Elo stage's batch writes mark them rated through its
store; beside those, a moderator's void (``moderation/services/penalties/voids.py``) changes a game's row, and comes
through this module. (The TrueSkill stage writes no game row: its progress is its own stage row's ``last_seq``.)
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.models import Game
from infra.announcements import GamesVoided, announce


def games_void_mark(*, game_ids: Sequence[int]) -> int:
    """These games are void from now on (the caller holds their row locks and has checked the void is allowed);
    returns how many rows changed. Announced after the commit (``GamesVoided``): tournaments re-score without the
    voided players."""
    changed: int = Game.objects.filter(pk__in=game_ids).update(status=Game.Status.VOID)
    announce(GamesVoided(game_ids=tuple(sorted(game_ids))))
    return changed
