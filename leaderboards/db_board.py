"""The leaderboard answered by SQL from the Rating rows: embedded mode's board, and the fallback of the Redis one.

Eligibility depends on the clock (a rated game in the last 90 days), so nothing is precomputed: every answer
filters the ratings as of ``now``. The ``rating_leaderboard`` index (title, elo desc, player, last_game_at,
games) serves the order, the counts of strictly higher ratings and the filters without reading the table.
A page costs three queries (total, rows, one count for the first row's rank), a window around a player five.
"""
from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from arena.models import Player
from leaderboards.board import MIN_GAMES, Page, Row, active_cutoff, assign_ranks, window_start
from ratings.models import Rating


class DbBoard:
    def __init__(self, title: str, *, now: datetime | None = None) -> None:
        self.title = title
        self.cutoff = active_cutoff(now or timezone.now())

    def eligible(self) -> QuerySet[Rating]:
        """The ranked ratings of the title: the rule of ``leaderboards.board.is_eligible`` as a filter."""
        return Rating.objects.filter(
            title=self.title,
            games__gte=MIN_GAMES,
            last_game_at__gt=self.cutoff,
            player__status=Player.Status.ACTIVE,
        )

    def page(self, *, offset: int, limit: int) -> Page:
        return self._slice(start=offset, limit=limit, total=self.eligible().count())

    def around(self, *, player_id: int, limit: int) -> Page | None:
        elo = self._elo_of(player_id)
        if elo is None:
            return None
        eligible = self.eligible()
        position = self._higher(elo) + eligible.filter(elo=elo, player_id__lt=player_id).count()
        total = eligible.count()
        return self._slice(start=window_start(position=position, total=total, limit=limit), limit=limit, total=total)

    def rank(self, *, player_id: int) -> int | None:
        elo = self._elo_of(player_id)
        return None if elo is None else self._higher(elo) + 1

    def _elo_of(self, player_id: int) -> float | None:
        return self.eligible().filter(player_id=player_id).values_list("elo", flat=True).first()

    def _higher(self, elo: float) -> int:
        return self.eligible().filter(elo__gt=elo).count()

    def _slice(self, *, start: int, limit: int, total: int) -> Page:
        rows = [
            Row(*values)
            for values in self.eligible()
            .order_by("-elo", "player_id")
            .values_list("player_id", "player__handle", "elo", "games")[start : start + limit]
        ]
        if not rows:
            return Page(total=total, entries=[])
        return Page(total=total, entries=assign_ranks(rows, start=start, first_rank=self._higher(rows[0].elo) + 1))
