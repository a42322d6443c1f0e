"""Where detection stands: the id watermark and each title's rating cursor (``DetectionState``), and the lag.

Neither cursor ever waits for a game: new games are those above the id watermark, whatever their status, and
newly *rated* games those above each title's rating cursor, in the order the rating stage rated them
(``Game.rating_seq``, one sequence per title, committed in order under the title's stage lock). So a game rated
late is looked at when it is rated, and a game that is never rated (a title whose rating is stuck) holds nobody
back: detection of every other game goes on.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Max, Min
from django.utils import timezone

from arena.games import all_games
from arena.models import Game
from moderation.models import DetectionState


def newly_rated(state: DetectionState, limit: int | None) -> tuple[list[int], dict[str, int], bool]:
    """The games rated since each title's cursor, in rating order (at most ``limit`` in all), the cursors after
    them, and whether the limit stopped the scan. One indexed range read per title (``game_rated_order``)."""
    cursors = dict(state.rated_seqs)
    titles = [game.title for game in all_games()]
    for title in titles:  # before the id watermark moves in this pass: the first cursor is placed from it
        if title not in cursors:
            cursors[title] = _first_cursor(title, state.last_game_id)
    rated: list[int] = []
    for title in titles:
        after = cursors[title]
        budget = None if limit is None else limit - len(rated)
        if budget is not None and budget <= 0:
            return rated, cursors, True
        query = (
            Game.objects.filter(title=title, status=Game.Status.RATED, rating_seq__gt=after)
            .order_by("rating_seq")
            .values_list("pk", "rating_seq")
        )
        rows = list(query[:budget] if budget is not None else query)
        if rows:
            after = rows[-1][1]
            rated.extend(pk for pk, _seq in rows)
        cursors[title] = after
    return rated, cursors, limit is not None and len(rated) >= limit


def _first_cursor(title: str, watermark: int) -> int:
    """A title's rating cursor where it has none yet (a fresh start, or a watermark kept from before the cursors):
    just below the first rated game above the id watermark, so nothing rated after the watermark is skipped."""
    rated = Game.objects.filter(title=title, status=Game.Status.RATED)
    first_unseen: int | None = rated.filter(pk__gt=watermark).aggregate(m=Min("rating_seq"))["m"]
    if first_unseen is not None:
        return first_unseen - 1
    last: int | None = rated.aggregate(m=Max("rating_seq"))["m"]
    return last or 0


def watermark_reset() -> None:
    """Forget the watermark and the rating cursors (tests, a re-run from scratch after changing the rules)."""
    DetectionState.objects.update_or_create(name="default", defaults={"last_game_id": 0, "rated_seqs": {}})


def detection_lag() -> int:
    """Games detection has still to look at (the panel's dashboard): recorded past the id watermark, and
    recorded before it but rated past their title's rating cursor (a game rated late is looked at again)."""
    state = DetectionState.objects.filter(name="default").first()
    watermark, cursors = (state.last_game_id, state.rated_seqs) if state else (0, {})
    lag: int = Game.objects.filter(pk__gt=watermark).count()
    for title, cursor in cursors.items():
        lag += Game.objects.filter(
            title=title, status=Game.Status.RATED, rating_seq__gt=cursor, pk__lte=watermark
        ).count()
    return lag


@dataclass(frozen=True)
class DetectionPending:
    """A title's games detection has still to look at, and the wait of the oldest new one (``age``)."""

    title: str
    pending: int
    age: timedelta


def detection_pending(*, now: datetime | None = None) -> list[DetectionPending]:
    """``detection_lag`` per title (the ``arena_detection_*`` gauges). The age counts from acceptance of the oldest
    game past the id watermark; a game rated late is counted but adds no age (when it was rated is not kept)."""
    now = now or timezone.now()
    state = DetectionState.objects.filter(name="default").first()
    watermark, cursors = (state.last_game_id, state.rated_seqs) if state else (0, {})
    counts: dict[str, int] = defaultdict(int)
    ages: dict[str, timedelta] = {}
    for row in (
        Game.objects.filter(pk__gt=watermark)
        .values("title")
        .annotate(n=Count("id"), oldest=Min("accepted_at"))
        .order_by()
    ):
        counts[row["title"]] += row["n"]
        ages[row["title"]] = max(now - row["oldest"], timedelta(0))
    for title, cursor in cursors.items():
        late = Game.objects.filter(
            title=title, status=Game.Status.RATED, rating_seq__gt=cursor, pk__lte=watermark
        ).count()
        if late:
            counts[title] += late
    return [DetectionPending(title, counts[title], ages.get(title, timedelta(0))) for title in sorted(counts)]
