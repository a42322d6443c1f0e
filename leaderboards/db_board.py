"""The leaderboard answered by SQL from the Rating rows: embedded mode's board, and the fallback of the Redis one.

Eligibility depends on the clock (a rated game in the last 90 days), so nothing is precomputed: every answer
filters the ratings as of ``now``. The partial ``rating_leaderboard`` index (title, elo desc, player,
last_game_at, games; games >= 5) serves the order, the counts of strictly higher ratings and the filters without
reading the table. Banned players are excluded with ``NOT IN (banned ids)`` rather than a join: there are few,
and a join costs a player lookup per rating counted (4x slower on SQLite at 50k players). A page reads their ids
once for its several queries; a rank, two queries, uses a subquery. Handles are fetched for the page's rows
only, for the same reason as the join. The counts a page needs (the board's size, how many rank above its first
row) come from one pass. A page costs four queries, a window around a player seven, a rank two, and the ranks of
one player on several boards (the player page's) one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cached_property

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from arena.models import Player
from leaderboards.board import MIN_GAMES, Page, Row, active_cutoff, assign_ranks, window_start
from leaderboards.provisional import excluded_titles, min_games
from ratings.models import Rating

# Up to this many banned players are excluded by a literal list; beyond, by a subquery.
_BANNED_INLINE = 1000


def _banned_ids() -> QuerySet[Player]:
    return Player.objects.filter(status=Player.Status.BANNED).values_list("pk", flat=True)


def ranks(*, titles: Sequence[str], player_id: int, now: datetime | None = None) -> dict[str, int]:
    """``DbBoard.rank`` on each board of ``titles`` in one query: the player's eligible ratings among them, each
    with how many eligible ratings of its title are strictly higher (a correlated count on the board's index).
    A title where the player is not ranked is absent."""
    cutoff = active_cutoff(now or timezone.now())
    eligible = _settled_only(
        Rating.objects.filter(games__gte=MIN_GAMES, last_game_at__gt=cutoff).exclude(player_id__in=_banned_ids())
    )
    higher = (
        eligible.filter(title=OuterRef("title"), elo__gt=OuterRef("elo"))
        .order_by()
        .values("title")
        .annotate(n=Count("player_id"))
        .values("n")
    )
    rows = eligible.filter(title__in=titles, player_id=player_id).annotate(higher=Subquery(higher))
    return {title: (above or 0) + 1 for title, above in rows.values_list("title", "higher")}


def _settled_only(ratings: QuerySet[Rating]) -> QuerySet[Rating]:
    """Leave out the provisional players of the boards that exclude them (leaderboards/provisional.py)."""
    excluded = excluded_titles()
    if not excluded:
        return ratings
    return ratings.exclude(title__in=excluded, games__lt=max(min_games(title) for title in excluded))


class DbBoard:
    def __init__(self, title: str, *, now: datetime | None = None) -> None:
        self.title = title
        self.cutoff = active_cutoff(now or timezone.now())

    def eligible(self, *, banned: list[int] | QuerySet[Player] | None = None) -> QuerySet[Rating]:
        """The ranked ratings of the title: ``leaderboards.board.is_eligible`` as a filter (its mirror)."""
        return Rating.objects.filter(
            title=self.title, games__gte=min_games(self.title), last_game_at__gt=self.cutoff
        ).exclude(player_id__in=self._banned if banned is None else banned)

    @cached_property
    def _banned(self) -> list[int] | QuerySet[Player]:
        """Banned player ids, read once for the several queries of a page; a subquery if too many to inline."""
        ids = list(_banned_ids()[: _BANNED_INLINE + 1])
        return _banned_ids() if len(ids) > _BANNED_INLINE else ids

    def page(self, *, offset: int, limit: int) -> Page:
        rows = self._rows(start=offset, limit=limit)
        if not rows:
            return Page(total=self.eligible().count(), entries=[])
        counts = self._counts(elo=rows[0].elo)
        return Page(total=counts["total"], entries=assign_ranks(rows, start=offset, first_rank=counts["higher"] + 1))

    def around(self, *, player: str, limit: int) -> Page | None:
        found = self.eligible().filter(player__handle=player).values_list("player_id", "elo").first()
        if found is None:
            return None
        player_id, elo = found
        counts = self._counts(elo=elo, player_id=player_id)
        total = counts["total"]
        start = window_start(position=counts["higher"] + counts["tied_before"], total=total, limit=limit)
        rows = self._rows(start=start, limit=limit)
        if not rows:  # the board changed between the queries
            return Page(total=total, entries=[])
        first_rank = self.eligible().filter(elo__gt=rows[0].elo).count() + 1
        return Page(total=total, entries=assign_ranks(rows, start=start, first_rank=first_rank))

    def rank(self, *, player_id: int) -> int | None:
        """Two queries (the player page asks once per game): the banned ids as a subquery, not read first."""
        eligible = self.eligible(banned=_banned_ids())
        elo = eligible.filter(player_id=player_id).values_list("elo", flat=True).first()
        return None if elo is None else eligible.filter(elo__gt=elo).count() + 1

    def _counts(self, *, elo: float, player_id: int | None = None) -> dict[str, int]:
        """The board's size, how many rank strictly above ``elo`` and, with a player, how many tie with them
        but are listed before them: one pass over the index instead of one per count."""
        counts = {"total": Count("player_id"), "higher": Count("player_id", filter=Q(elo__gt=elo))}
        if player_id is not None:
            counts["tied_before"] = Count("player_id", filter=Q(elo=elo, player_id__lt=player_id))
        found: dict[str, int] = self.eligible().aggregate(**counts)
        return found

    def _rows(self, *, start: int, limit: int) -> list[Row]:
        ordered = self.eligible().order_by("-elo", "player_id").values_list("player_id", "elo", "games")
        values = list(ordered[start : start + limit])
        if not values:
            return []
        handles = dict(Player.objects.filter(pk__in=[v[0] for v in values]).values_list("pk", "handle"))
        return [Row(player_id, handles[player_id], elo, games) for player_id, elo, games in values]
