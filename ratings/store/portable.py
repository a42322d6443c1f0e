"""The rating store on any database Django speaks (SQLite in embedded mode): the ORM's ``values_list`` for reads,
one ``executemany`` per table for writes. The same meaning as :mod:`ratings.store.postgres`, statement for
statement; SQLite locks the whole database for a write transaction, so ``lock_ratings`` has nothing to add.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import QuerySet

from arena.models import Game, Seat
from ratings.models import Rating, Reputation
from ratings.plan import ChangeRow, PlayerState, RatedGame, RatedSeat, SkillState
from ratings.reputation import KEEP
from ratings.skill import DEFAULT_SKILL, Skill
from ratings.store import CooldownUpdate, EloUpdate, NewRating, ReputationRow, SkillUpdate
from ratings.store.tables import CHANGE, CHANGE_COLUMNS, GAME, PENDING, RATED, RATING

_GAME_COLUMNS = ("id", "recommended_sides", "coop_score", "finished_at")


def _dt(value: datetime | None) -> object:
    """A datetime as the database wants it through a raw cursor (for SQLite: Django's text form, naive UTC)."""
    return connection.ops.adapt_datetimefield_value(value) if value is not None else None


def _with_seats(games: list[tuple[Any, ...]]) -> list[RatedGame]:
    """(id, recommended_sides, coop_score, finished_at, deck, ...) tuples -> RatedGames, seats in position order."""
    seats: dict[int, list[RatedSeat]] = {game[0]: [] for game in games}
    if games:
        rows = (
            Seat.objects.filter(game_id__in=list(seats))
            .order_by("game_id", "position")
            .values_list("game_id", "player_id", "side", "place", "quit")
        )
        for game_id, player_id, side, place, quit_ in rows:
            seats[game_id].append((player_id, side, place, quit_))
    return [RatedGame(g[0], g[1], g[2], g[3], g[4], seats[g[0]]) for g in games]


def _read(games: QuerySet[Game], deck_key: str | None, *extra: str) -> list[tuple[Any, ...]]:
    """Rows of (id, recommended_sides, coop_score, finished_at, deck, *extra); the variant (JSON) is read only
    for its deck."""
    if deck_key is None:
        return [(*row[:4], None, *row[4:]) for row in games.values_list(*_GAME_COLUMNS, *extra)]
    return [(*row[:4], row[4][deck_key], *row[5:]) for row in games.values_list(*_GAME_COLUMNS, "variant", *extra)]


class BatchPortableStore:
    def pending_games(self, *, title: str, limit: int, deck_key: str | None) -> list[RatedGame]:
        pending = Game.objects.filter(title=title, status=PENDING).order_by("id")[:limit]
        return _with_seats(_read(pending, deck_key))

    def rated_games(
        self, *, title: str, after_seq: int | None, limit: int, deck_key: str | None
    ) -> tuple[list[RatedGame], list[int]]:
        rated = Game.objects.filter(title=title, status=RATED, rating_seq__gt=after_seq or 0).order_by("rating_seq")
        games = _read(rated[:limit], deck_key, "rating_seq")
        return _with_seats(games), [g[5] for g in games]

    def elo_states(self, *, title: str, player_ids: Collection[int]) -> dict[int, PlayerState]:
        rows = (
            Rating.objects.select_for_update()
            .filter(title=title, player_id__in=list(player_ids))
            .order_by("id")
            .values_list("id", "player_id", "elo", "games")
        )
        return {player_id: PlayerState(rating_id, elo, games) for rating_id, player_id, elo, games in rows}

    def skill_states(self, *, title: str, player_ids: Collection[int]) -> dict[int, SkillState]:
        rows = Rating.objects.filter(title=title, player_id__in=list(player_ids)).values_list(
            "id", "player_id", "ts_mu", "ts_sigma"
        )
        return {
            player_id: SkillState(rating_id, DEFAULT_SKILL if mu is None or sigma is None else Skill(mu, sigma))
            for rating_id, player_id, mu, sigma in rows
        }

    def insert_ratings(self, *, title: str, rows: Sequence[NewRating]) -> None:
        if not rows:
            return
        with connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {RATING} (player_id, title, elo, games, last_game_at, ts_mu, ts_sigma) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [(p, title, e, g, _dt(at), mu, sigma) for p, e, g, at, mu, sigma in rows],
            )

    def update_elo(self, *, rows: Sequence[EloUpdate]) -> None:
        if not rows:
            return
        with connection.cursor() as cursor:
            cursor.executemany(
                f"UPDATE {RATING} SET elo = %s, games = %s, last_game_at = CASE "
                "WHEN last_game_at IS NULL OR last_game_at < %s THEN %s ELSE last_game_at END WHERE id = %s",
                [(e, g, _dt(at), _dt(at), rid) for rid, e, g, at in rows],
            )

    def update_skill(self, *, rows: Sequence[SkillUpdate]) -> None:
        if not rows:
            return
        with connection.cursor() as cursor:
            cursor.executemany(
                f"UPDATE {RATING} SET ts_mu = %s, ts_sigma = %s WHERE id = %s",
                [(mu, sigma, rid) for rid, mu, sigma in rows],
            )

    def lock_ratings(self, *, ids: Sequence[int]) -> None:
        if ids and connection.features.has_select_for_update:
            list(Rating.objects.select_for_update().filter(id__in=list(ids)).order_by("id").values_list("id"))

    def insert_changes(self, *, title: str, rows: Sequence[ChangeRow], created_at: datetime) -> None:
        if not rows:
            return
        placeholders = ", ".join(["%s"] * len(CHANGE_COLUMNS))
        created = _dt(created_at)
        with connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {CHANGE} ({', '.join(CHANGE_COLUMNS)}) VALUES ({placeholders})",
                [(*row[:10], _dt(row.finished_at), row.opponent, title, created) for row in rows],
            )

    def mark_games_rated(self, *, rows: Sequence[tuple[int, int]]) -> None:
        if not rows:
            return
        with connection.cursor() as cursor:
            cursor.executemany(
                f"UPDATE {GAME} SET status = %s, rating_seq = %s WHERE id = %s",
                [(RATED, seq, game_id) for game_id, seq in rows],
            )

    def append_outcomes(
        self, *, rows: Sequence[tuple[int, str]], returning: Collection[int]
    ) -> dict[int, ReputationRow]:
        if not rows:
            return {}
        ids = [player_id for player_id, _ in rows]
        found = {r.player_id: r for r in Reputation.objects.select_for_update().filter(player_id__in=ids)}
        new, changed = [], []
        for player_id, added in rows:
            row = found.get(player_id)
            if row is None:
                row = found[player_id] = Reputation(player_id=player_id, recent=added[-KEEP:])
                new.append(row)
            else:
                row.recent = (row.recent + added)[-KEEP:]
                changed.append(row)
        Reputation.objects.bulk_create(new)
        Reputation.objects.bulk_update(changed, ["recent"])
        return {
            pk: (
                found[pk].recent,
                found[pk].cooldown_until,
                found[pk].cooldown_seconds,
                found[pk].cooldown_started_at,
                found[pk].last_quit_at,
            )
            for pk in returning
            if pk in found
        }

    def update_cooldowns(self, *, rows: Sequence[CooldownUpdate]) -> None:
        if rows:
            Reputation.objects.bulk_update(
                [
                    Reputation(
                        player_id=player_id,
                        cooldown_until=until,
                        cooldown_seconds=seconds,
                        cooldown_started_at=started,
                        last_quit_at=last_quit,
                    )
                    for player_id, until, seconds, started, last_quit in rows
                ],
                ["cooldown_until", "cooldown_seconds", "cooldown_started_at", "last_quit_at"],
            )
