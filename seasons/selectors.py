"""Season reads (docs/seasons.md), each a fixed number of queries whatever the size of the answer.

The open season's standings are read from the Redis copy when it holds the season's version (scaled out), else
from the live entries, banned players left out at each read; both give the same answer. A closed season's from its
archive (``SeasonFinal``, ``SeasonCorrection``) only, never from the live tables.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q

from arena.models import Game, Player, Seat
from arena.selectors import player_get
from infra.errors import NotFound
from ratings.plan import RatedGame
from seasons import rules, standings, standings_redis
from seasons.models import Season, SeasonCorrection, SeasonEntry, SeasonFinal, SeasonGame
from seasons.services import season_open, season_rules

_BANNED = Player.Status.BANNED


@dataclass(frozen=True)
class StandingsPage:
    total: int
    rows: list[dict[str, Any]]
    leagues: list[dict[str, Any]]


def _leagues(sizes: dict[int | None, int]) -> list[dict[str, Any]]:
    return [
        {"name": name, "threshold": threshold, "size": sizes.get(i, 0)}
        for i, (name, threshold) in enumerate(zip(rules.LEAGUES, rules.THRESHOLDS, strict=True))
    ]


def _live(season: Season):
    """The open season's entries without banned players (few: the players' partial index on banned)."""
    banned = Player.objects.filter(status=_BANNED).values("id")
    return SeasonEntry.objects.filter(season=season).exclude(player_id__in=banned)


_PAGE_FIELDS = ("player__handle", "league", "points", "games", "placement_left", "elo", "tier", "score")


def _live_sizes(season: Season) -> tuple[int, dict[int | None, int]]:
    sizes = dict(_live(season).values_list("league").annotate(n=Count("id")).order_by())
    return sum(sizes.values()), sizes


def _page(season: Season, start: int, limit: int, sizes: dict[int | None, int]) -> list[dict[str, Any]]:
    """``limit`` rows from 0-based position ``start``, in the entries' index order; ranks as the boards give them:
    one count for the first row (1 + those strictly above)."""
    rows = list(_live(season).order_by("-tier", "-score", "player_id").values(*_PAGE_FIELDS)[start : start + limit])
    if not rows:
        return []
    first = rows[0]
    rank = 1 + _live(season).filter(Q(tier__gt=first["tier"]) | Q(tier=first["tier"], score__gt=first["score"])).count()
    return _shaped(rows, start, rank, sizes, lambda row: (row["tier"], row["score"]))


def _shaped(
    rows: list[dict[str, Any]], start: int, first_rank: int, sizes: dict[int | None, int], key: Any
) -> list[dict[str, Any]]:
    """The API's rows from stored ones, whichever store read them. After the first row (``first_rank``), a row
    tying the row above (equal ``key``) shares its rank and any other row's rank is its position + 1. A row's place
    inside its league is its position less the players of the leagues above it: the relegation zone."""
    out = []
    rank = first_rank
    previous = None
    for i, row in enumerate(rows):
        mine = key(row)
        if i and mine != previous:
            rank = start + i + 1
        previous = mine
        league = row["league"]
        relegation = False
        if league:
            above = sum(n for lg, n in sizes.items() if lg is not None and lg > league)
            in_league = start + i + 1 - above
            relegation = in_league > sizes[league] - math.ceil(rules.RELEGATION_SHARE * sizes[league])
        out.append(
            {
                "rank": rank,
                "player": row["player__handle"],
                "league": rules.league_name(league) if league is not None else None,
                "points": row["points"],
                "games": row["games"],
                "placement_left": row["placement_left"],
                "season_elo": round(row["elo"], 2) if league == rules.TOP else None,
                "relegation": relegation,
            }
        )
    return out


def _from_redis(reply: standings_redis.Reply) -> StandingsPage:
    rows = _shaped(reply.rows, reply.start, reply.first_rank, reply.sizes, lambda row: row["key"])
    return StandingsPage(reply.total, rows, _leagues(reply.sizes))


def standings_live(*, season: Season, offset: int, limit: int) -> StandingsPage:
    """A page of the open season's standings: from the Redis copy in one round trip when it holds the season's
    version (``seasons/standings.py``), else three queries (league sizes, the page, one count for its rank)."""
    reply = standings.read(season, mode_="page", arg=offset, limit=limit)
    if reply is not None:
        return _from_redis(reply)
    total, sizes = _live_sizes(season)
    return StandingsPage(total, _page(season, offset, limit, sizes), _leagues(sizes))


def _not_in_season(season: Season, player: str) -> NotFound:
    return NotFound(
        "player_not_in_season",
        f"{player} has no place in {season}: no counted game yet, or banned.",
        {"around": "Not in this season's standings."},
    )


def standings_live_around(*, season: Season, player: str, limit: int) -> StandingsPage:
    """The ``limit`` rows around ``player``; 404 ``player_not_found`` or ``player_not_in_season``."""
    found = player_get(handle=player)
    reply = standings.read(season, mode_="around", arg=found.id, limit=limit)
    if reply is not None:
        if not reply.found:
            raise _not_in_season(season, player)
        return _from_redis(reply)
    entry = _live(season).filter(player=found).values_list("tier", "score").first()
    if entry is None:
        raise _not_in_season(season, player)
    tier, score = entry
    position = (
        _live(season)
        .filter(Q(tier__gt=tier) | Q(tier=tier, score__gt=score) | Q(tier=tier, score=score, player_id__lt=found.id))
        .count()
    )
    total, sizes = _live_sizes(season)
    start = rules.window_start(position=position, total=total, limit=limit)
    return StandingsPage(total, _page(season, start, limit, sizes), _leagues(sizes))


def _final_row(f: dict[str, Any]) -> dict[str, Any]:
    league = f["league"]
    return {
        "rank": f["rank"],
        "player": f["player__handle"],
        "league": rules.league_name(league) if league is not None else None,
        "points": f["points"],
        "games": f["games"],
        "placement_left": f["placement_left"],
        "season_elo": round(f["season_elo"], 2) if f["season_elo"] is not None else None,
        "relegation": f["relegation"],
    }


_FINAL_FIELDS = ("rank", "player__handle", "league", "points", "games", "placement_left", "season_elo", "relegation")


def season_closed(*, title: str, number: int) -> Season:
    """A closed season of the title; 404 ``season_not_found`` for one that does not exist or is still open."""
    found = Season.objects.filter(title=title, number=number, closed_at__isnull=False).first()
    if found is None:
        raise NotFound("season_not_found", f"{title} has no closed season {number}.")
    return found


def standings_archived(*, season: Season, offset: int, limit: int, around: str | None) -> StandingsPage:
    """A closed season's final standings, from the archive only."""
    finals = SeasonFinal.objects.filter(season=season)
    sizes = dict(finals.values_list("league").annotate(n=Count("id")).order_by())
    total = sum(sizes.values())
    ordered = finals.order_by("rank", "player_id")
    if around is not None:
        found = player_get(handle=around)
        mine = finals.filter(player=found).values_list("rank", flat=True).first()
        if mine is None:
            raise NotFound(
                "player_not_in_season",
                f"{around} has no place in {season}.",
                {"around": "Not in this season's final standings."},
            )
        position = finals.filter(Q(rank__lt=mine) | Q(rank=mine, player_id__lt=found.id)).count()
        offset = rules.window_start(position=position, total=total, limit=limit)
    rows = [_final_row(f) for f in ordered.values(*_FINAL_FIELDS)[offset : offset + limit]]
    return StandingsPage(total, rows, _leagues(sizes))


def corrections_of(*, season: Season) -> list[dict[str, Any]]:
    return [
        {"player": c["player__handle"], "text": c["text"], "created_at": c["created_at"]}
        for c in SeasonCorrection.objects.filter(season=season)
        .order_by("id")
        .values("player__handle", "text", "created_at")
    ]


def corrections_for_games(*, game_ids: Iterable[int]) -> list[dict[str, Any]]:
    """The correction lines a void of these games caused in closed seasons (for the void's refund summary in the
    panel): ``[{"game", "season", "player", "text"}]``, oldest first."""
    ids = {int(g) for g in game_ids}
    if not ids:
        return []
    out = []
    for c in SeasonCorrection.objects.order_by("id").values(
        "season__title", "season__number", "player__handle", "text", "game_ids"
    ):
        if ids & set(c["game_ids"]):
            out.append(
                {
                    "game": c["season__title"],
                    "season": c["season__number"],
                    "player": c["player__handle"],
                    "text": c["text"],
                }
            )
    return out


def _player_lines(season: Season, player_id: int, carried: int | None) -> list[rules.GameLine]:
    """The player's counted games rebuilt with their points and why (``rules.player_lines``): three queries (their
    games' leagues, the games, their seats), whatever the number of games."""
    mine = Seat.objects.filter(player_id=player_id, game__title=season.title).values("game_id")
    counted = list(
        SeasonGame.objects.filter(season=season, game_id__in=mine).order_by("seq").values_list("game_id", "leagues")
    )
    if not counted:
        return []
    ids = [game_id for game_id, _ in counted]
    finished = dict(Game.objects.filter(id__in=ids).values_list("id", "finished_at"))
    seats: dict[int, list[tuple[int, int, int, bool]]] = {game_id: [] for game_id in ids}
    for game_id, pid, side, place, quit_ in (
        Seat.objects.filter(game_id__in=ids)
        .order_by("game_id", "position")
        .values_list("game_id", "player_id", "side", "place", "quit")
    ):
        seats[game_id].append((pid, side, place, quit_))
    start = rules.start_entry(player_id, carried, season_rules())
    return rules.player_lines(
        player_id,
        start,
        [(RatedGame(game_id, None, None, finished[game_id], None, seats[game_id]), code) for game_id, code in counted],
    )


def player_season(*, title: str, player: str) -> dict[str, Any]:
    """A player's open season: league, points, rank, each counted game with its points and why, and the
    correction lines of the title's closed seasons."""
    found = player_get(handle=player)
    season = season_open(title=title)
    entry = (
        SeasonEntry.objects.filter(season=season, player=found)
        .values("league", "points", "games", "placement_left", "elo", "tier", "score", "carried")
        .first()
    )
    rank = None
    if entry is not None and not found.is_banned:
        reply = standings.read(season, mode_="rank", arg=found.id, limit=1)
        if reply is not None:
            rank = reply.first_rank if reply.found else None
        else:
            above = _live(season).filter(Q(tier__gt=entry["tier"]) | Q(tier=entry["tier"], score__gt=entry["score"]))
            rank = 1 + above.count()
    lines = _player_lines(season, found.id, entry["carried"] if entry else None)
    corrections = (
        SeasonCorrection.objects.filter(season__title=title, player=found)
        .order_by("id")
        .values("season__number", "text", "created_at")
    )
    league = entry["league"] if entry else None
    return {
        "game": title,
        "season": season.number,
        "player": found.handle,
        "rank": rank,
        "league": rules.league_name(league) if league is not None else None,
        "points": entry["points"] if entry else 0,
        "games": entry["games"] if entry else 0,
        "placement_left": entry["placement_left"] if entry else season_rules().placement_games,
        "season_elo": round(entry["elo"], 2) if entry and league == rules.TOP else None,
        "results": [
            {
                "game_id": r.game_id,
                "finished_at": r.finished_at,
                "place": r.place,
                "sides": r.sides,
                "points": r.points,
                "league_after": rules.league_name(r.league_after) if r.league_after is not None else None,
                "opponents": [{"league": o[0], "outcome": o[1], "points": o[2]} for o in r.opponents],
            }
            for r in lines
        ],
        "corrections": [
            {"season": c["season__number"], "text": c["text"], "created_at": c["created_at"]} for c in corrections
        ],
    }


def player_season_titles(*, player_id: int) -> list[str]:
    """The titles whose open season counts this player (played, or carried over), or whose closed seasons hold a
    correction of theirs: the case file shows a season for each (one query)."""
    entries = SeasonEntry.objects.filter(player_id=player_id, season__closed_at__isnull=True).values_list(
        "season__title", flat=True
    )
    corrected = SeasonCorrection.objects.filter(player_id=player_id).values_list("season__title", flat=True)
    return sorted(set(entries.union(corrected)))
