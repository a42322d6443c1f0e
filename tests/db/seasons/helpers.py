"""An independent reading of a season for the tests: rated games straight from the ORM, replayed by the pure rules,
to hold the live stage's stored standings against."""

from __future__ import annotations

from typing import Any

from arena.models import Game, Player, Seat
from ratings.plan import RatedGame
from seasons import rules
from seasons.models import Season
from seasons.selectors import standings_live
from seasons.services import season_rules


def carry_of(season: Season) -> dict[int, int]:
    """The leagues the season's opening carried players into (player id -> league index)."""
    from seasons.models import SeasonEntry

    return dict(SeasonEntry.objects.filter(season=season, carried__isnull=False).values_list("player_id", "carried"))


def replayed_rows(season: Season) -> list[tuple[Any, ...]]:
    """The season replayed from scratch: (player, rank, league, points, games, placement_left, season_elo)."""
    games = []
    for g in Game.objects.filter(
        title=season.title, status=Game.Status.RATED, finished_at__gte=season.starts_at, finished_at__lt=season.ends_at
    ).order_by("rating_seq"):
        seats = [(s.player_id, s.side, s.place, s.quit) for s in Seat.objects.filter(game=g).order_by("position")]
        games.append(RatedGame(g.id, g.recommended_sides, None, g.finished_at, None, seats))
    play = rules.season_replay(games, carry=carry_of(season), rules=season_rules())
    banned = set(Player.objects.filter(status=Player.Status.BANNED).values_list("id", flat=True))
    elo = {pid: s.elo for pid, s in play.elo_states.items()}
    handles = dict(Player.objects.values_list("id", "handle"))
    return [
        (
            handles[r.player_id],
            r.rank,
            rules.league_name(r.league) if r.league is not None else None,
            r.points,
            r.games,
            r.placement_left,
            None if r.season_elo is None else round(r.season_elo, 2),
            r.relegation,
        )
        for r in rules.standings(play.entries.values(), elo, excluded=banned)
    ]


def live_rows(season: Season) -> list[tuple[Any, ...]]:
    page = standings_live(season=season, offset=0, limit=10_000)
    return [
        (
            r["player"],
            r["rank"],
            r["league"],
            r["points"],
            r["games"],
            r["placement_left"],
            r["season_elo"],
            r["relegation"],
        )
        for r in page.rows
    ]


def replayed_state(season: Season) -> dict[int, tuple[Any, ...]]:
    """Every player's full season state by replay, the season Elo included (the standings show it only in the
    top league, which small random seasons seldom reach)."""
    games = []
    for g in Game.objects.filter(
        title=season.title, status=Game.Status.RATED, finished_at__gte=season.starts_at, finished_at__lt=season.ends_at
    ).order_by("rating_seq"):
        seats = [(s.player_id, s.side, s.place, s.quit) for s in Seat.objects.filter(game=g).order_by("position")]
        games.append(RatedGame(g.id, g.recommended_sides, None, g.finished_at, None, seats))
    play = rules.season_replay(games, carry=carry_of(season), rules=season_rules())
    return {
        pid: (
            e.points,
            e.games,
            e.placement_left,
            e.league,
            round(play.season_elo(pid), 9),
            play.elo_states[pid].games if pid in play.elo_states else 0,
        )
        for pid, e in play.entries.items()
    }


def live_state(season: Season) -> dict[int, tuple[Any, ...]]:
    from seasons.models import SeasonEntry

    return {
        row[0]: (*row[1:5], round(row[5], 9), row[6])
        for row in SeasonEntry.objects.filter(season=season).values_list(
            "player_id", "points", "games", "placement_left", "league", "elo", "elo_games"
        )
    }


_seq = [0]


def rated_game(title: str, seats: list[tuple[Player, int, int]], finished_at, *, status: str = "rated") -> Game:
    """A game written as the rating stage leaves it: rated, with the next rating_seq. seats: (player, side, place)."""
    from arena.models import GameServer

    server = GameServer.objects.first() or GameServer.objects.create(
        name="seasons-server", key_prefix="t", key_hash="seasons-server"
    )
    _seq[0] += 1
    sides = 1 + max(side for _, side, _ in seats)
    game = Game.objects.create(
        server=server,
        table_id=f"S-{_seq[0]}",
        title=title,
        rated=True,
        finished_at=finished_at,
        status=status,
        fingerprint="x",
        recommended_sides=sides,
        rating_seq=_seq[0] + 10_000,
    )
    Seat.objects.bulk_create(
        [
            Seat(game=game, player=p, position=i, side=side, place=place, ip_hash="h")
            for i, (p, side, place) in enumerate(seats)
        ]
    )
    return game
