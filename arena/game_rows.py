"""The writes of ``Game`` rows that other apps ask for: the core owns the row kind, the others call here.

Recording creates games (``arena/recording.py``) and the rating stages' batch writes mark them rated through
their store; beside those, a moderator's void (``moderation/services/penalties/voids.py``) and the TrueSkill stage's
"nothing to rate" (``ratings/trueskill_batch.py``) change a game's row, and both come through this module.
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


def games_trueskill_skip(*, title: str) -> int:
    """A title TrueSkill does not rate: every rated game of it waiting for the TrueSkill stage is marked done, so
    the stage's lag reads zero; returns how many."""
    changed: int = Game.objects.filter(title=title, status=Game.Status.RATED, trueskill_done=False).update(
        trueskill_done=True
    )
    return changed
