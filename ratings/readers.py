"""Reads for the rating stages: one query per table per batch, rows as plain tuples (never model instances).

On PostgreSQL the hot reads go through a server-binding binary cursor with ``= ANY(array)`` (one parameter
instead of thousands, no text parsing of timestamps and doubles); elsewhere the ORM's ``values_list`` returns
the same tuples. Both paths return the same Python values (aware UTC datetimes, floats, ints).
"""
from __future__ import annotations

from collections.abc import Collection

from arena.db import pg_cursor, postgres
from arena.models import Game, Seat
from ratings.models import Rating
from ratings.plan import GameRow, PlayerState, SeatRow, SkillState
from ratings.skill import DEFAULT_SKILL, Skill
from ratings.writers import GAME, RATING

SEAT = Seat._meta.db_table
PENDING = Game.Status.PENDING.value
RATED = Game.Status.RATED.value


def _attach_seats(games: list[tuple], hanabi: bool) -> list[GameRow]:
    """(id, rec, coop_score, finished_at, deck, ...) tuples -> GameRows with their seats in position order."""
    seats: dict[int, list[SeatRow]] = {game[0]: [] for game in games}
    if games:
        if postgres():
            with pg_cursor() as cur:
                cur.execute(f"SELECT game_id, player_id, side, place, quit FROM {SEAT} WHERE game_id = ANY(%b::int8[]) "
                            "ORDER BY game_id, position", [list(seats)])
                rows = cur.fetchall()
        else:
            rows = Seat.objects.filter(game_id__in=list(seats)).order_by("game_id", "position").values_list(
                "game_id", "player_id", "side", "place", "quit")
        for game_id, player_id, side, place, quit_ in rows:
            seats[game_id].append((player_id, side, place, quit_))
    return [GameRow(g[0], g[1], g[2], g[3], g[4] if hanabi else None, seats[g[0]]) for g in games]


def _deck_rows(rows: list[tuple], hanabi: bool) -> list[tuple]:
    """ORM rows carry the whole variant (JSON) in fifth place: keep only Hanabi's deck there (None elsewhere)."""
    return [(*row[:4], row[4]["deck"] if hanabi else None, *row[5:]) for row in rows]


def pending_games(*, title: str, limit: int, hanabi: bool) -> list[GameRow]:
    """The title's first ``limit`` pending games in arrival (id) order, with their seats."""
    if postgres():
        with pg_cursor() as cur:
            cur.execute(f"SELECT id, rec, coop_score, finished_at, variant->>'deck' FROM {GAME} "
                        "WHERE title = %b AND status = %b ORDER BY id LIMIT %b", [title, PENDING, limit])
            games = cur.fetchall()
    else:
        games = _deck_rows(list(
            Game.objects.filter(title=title, status=PENDING).order_by("id")
            .values_list("id", "rec", "coop_score", "finished_at", "variant")[:limit]
        ), hanabi)
    return _attach_seats(games, hanabi)


def trueskill_todo(*, title: str, limit: int) -> tuple[list[GameRow], list[int]]:
    """Elo-rated games TrueSkill has not applied yet, in rating_seq order; and their seqs."""
    if postgres():
        with pg_cursor() as cur:
            cur.execute(f"SELECT id, rec, coop_score, finished_at, NULL, rating_seq FROM {GAME} "
                        "WHERE title = %b AND status = %b AND NOT trueskill_done ORDER BY rating_seq LIMIT %b",
                        [title, RATED, limit])
            games = cur.fetchall()
    else:
        games = [(*g[:4], None, g[4]) for g in
                 Game.objects.filter(title=title, status=RATED, trueskill_done=False).order_by("rating_seq")
                 .values_list("id", "rec", "coop_score", "finished_at", "rating_seq")[:limit]]
    return _attach_seats(games, False), [g[5] for g in games]


def rated_games(*, title: str, after_seq: int | None, limit: int, hanabi: bool
                ) -> tuple[list[GameRow], list[int], list[bool]]:
    """A chunk of rated games in rating_seq order after ``after_seq``: rows, seqs, trueskill_done flags."""
    if postgres():
        with pg_cursor() as cur:
            cur.execute(f"SELECT id, rec, coop_score, finished_at, variant->>'deck', rating_seq, trueskill_done "
                        f"FROM {GAME} WHERE title = %b AND status = %b AND rating_seq > %b "
                        "ORDER BY rating_seq LIMIT %b", [title, RATED, after_seq or 0, limit])
            games = cur.fetchall()
    else:
        rated = Game.objects.filter(title=title, status=RATED).order_by("rating_seq")
        if after_seq is not None:
            rated = rated.filter(rating_seq__gt=after_seq)
        games = _deck_rows(list(rated.values_list("id", "rec", "coop_score", "finished_at", "variant", "rating_seq",
                                                  "trueskill_done")[:limit]), hanabi)
    return _attach_seats(games, hanabi), [g[5] for g in games], [g[6] for g in games]


def elo_states(*, title: str, player_ids: Collection[int]) -> dict[int, PlayerState]:
    """The players' current Elo standings, their Rating rows locked FOR UPDATE in id order (see writers)."""
    if postgres():
        with pg_cursor() as cur:
            cur.execute(f"SELECT id, player_id, elo, games FROM {RATING} WHERE title = %b "
                        "AND player_id = ANY(%b::int8[]) ORDER BY id FOR UPDATE", [title, list(player_ids)])
            rows = cur.fetchall()
    else:
        rows = (Rating.objects.select_for_update().filter(title=title, player_id__in=list(player_ids))
                .order_by("id").values_list("id", "player_id", "elo", "games"))
    return {player_id: PlayerState(rating_id, elo, games) for rating_id, player_id, elo, games in rows}


def skill_states(*, title: str, player_ids: Collection[int]) -> dict[int, SkillState]:
    """The players' TrueSkill beliefs (read without locks: only the TrueSkill stage writes them)."""
    if postgres():
        with pg_cursor() as cur:
            cur.execute(f"SELECT id, player_id, ts_mu, ts_sigma FROM {RATING} WHERE title = %b "
                        "AND player_id = ANY(%b::int8[])", [title, list(player_ids)])
            rows = cur.fetchall()
    else:
        rows = Rating.objects.filter(title=title, player_id__in=list(player_ids)).values_list(
            "id", "player_id", "ts_mu", "ts_sigma")
    return {player_id: SkillState(rating_id, DEFAULT_SKILL if mu is None or sigma is None else Skill(mu, sigma))
            for rating_id, player_id, mu, sigma in rows}
