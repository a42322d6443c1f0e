"""The season's rules (docs/seasons.md): calendar, leagues, points, placement, carry-over, season Elo, standings.

Pure Python: no Django, no Redis, no models. A season is a *replay*: :class:`SeasonPlay` folds the season's rated
games in rating order, and the live stage (``seasons/services.py``) folds each rating batch through the very same
``SeasonPlay.apply_game``, so the live standings are the replay's at every moment (tests/db/seasons/).

The season Elo is not rewritten here: it is ``ratings.plan.EloPlan`` (the title's own Elo rules, ``ratings/elo.py``)
run over the season's games from fresh states.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from ratings.elo import DEFAULT, EloConfig
from ratings.plan import EloPlan, PlayerState, RatedGame

# docs/seasons.md "Leagues": the names are the API's contract, lowest first.
LEAGUES: tuple[str, ...] = ("bronze", "silver", "gold", "platinum", "diamond", "elite")
# Season points at which each league begins (the league's promotion threshold), lowest first.
THRESHOLDS: tuple[int, ...] = (0, 100, 250, 450, 700, 1000)
TOP = len(LEAGUES) - 1
# docs/seasons.md "The calendar": seasons start at aligned multiples of the length from this moment (a Monday).
EPOCH = datetime(2026, 1, 5, tzinfo=UTC)
LENGTH_DAYS = 91
PLACEMENT_GAMES = 3
# The bottom fifth of each league (rounded up) is its relegation zone; the lowest league has none.
RELEGATION_SHARE = 0.2
# Pair points: beating an opposing side 2, tying it 1, losing to it 0, times the opposing side's weight.
WIN_PAIR, TIE_PAIR = 2, 1
# An opposing side's weight: BASE_WEIGHT + its league index (bronze 5 ... elite 10); a side in placement counts
# as bronze.
BASE_WEIGHT = 5


@dataclass(frozen=True, slots=True)
class SeasonRules:
    """The tunable numbers; the service builds one from settings (``SEASON_LENGTH_DAYS``, ...)."""

    length_days: int = LENGTH_DAYS
    placement_games: int = PLACEMENT_GAMES
    elo: EloConfig = DEFAULT

    def __post_init__(self) -> None:
        if self.length_days < 1 or self.placement_games < 0:
            raise ValueError("a season lasts at least a day and needs a non-negative number of placement games")


# The calendar ---------------------------------------------------------------------------------------------------


def aligned_end(after: datetime, length_days: int) -> datetime:
    """The first aligned boundary (EPOCH + k * length) strictly after ``after``: where a season opened then ends."""
    step = timedelta(days=length_days)
    k = math.floor((after - EPOCH) / step) + 1
    return EPOCH + k * step


def aligned_start(at: datetime, length_days: int) -> datetime:
    """The aligned boundary at or before ``at``: where the first season of a title opened at ``at`` starts."""
    return aligned_end(at, length_days) - timedelta(days=length_days)


# Leagues -------------------------------------------------------------------------------------------------------


def league_of(points: int) -> int:
    """The highest league whose threshold ``points`` reach (promotion is reaching the next threshold)."""
    league = 0
    for index, threshold in enumerate(THRESHOLDS):
        if points >= threshold:
            league = index
    return league


def weight(league: int | None) -> int:
    """An opposing player's weight: 5 for bronze (and a player still in placement) up to 10 for elite."""
    return BASE_WEIGHT + (league or 0)


def carry_league(final_league: int | None, relegated: bool) -> int:
    """The league the next season starts in: one down, two down from a relegation zone, never below bronze."""
    if final_league is None:
        return 0
    return max(0, final_league - (2 if relegated else 1))


# One player's season -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class Entry:
    """A player's season so far. ``league`` is None while placement games are left."""

    player_id: int
    points: int = 0
    games: int = 0
    placement_left: int = PLACEMENT_GAMES
    league: int | None = None
    start_league: int | None = None  # carried over from the previous season (then no placement)


@dataclass(frozen=True, slots=True)
class GameLine:
    """Why one game gave one player its points: the place, the opposing sides' leagues and what each gave."""

    game_id: int
    player_id: int
    finished_at: datetime
    place: int
    sides: int
    # One (league name or "placement", outcome "win"/"tie"/"loss", pair points) per opposing side.
    opponents: tuple[tuple[str, str, int], ...]
    points: int
    league_after: int | None


def side_league(leagues: Sequence[int | None]) -> int:
    """A side's league for weighting: the mean of its members' league indexes (placement = 0), rounded down."""
    return sum(league or 0 for league in leagues) // len(leagues)


@dataclass
class SeasonPlay:
    """Folds a season's rated games, in rating order, into entries, game lines and the season Elo.

    ``carry``: player id -> league carried over from the previous season (those players start at that league's
    threshold with no placement games). ``elo_states`` may be given (the live stage loads only the players of a
    batch); otherwise every player starts the season Elo afresh.
    """

    rules: SeasonRules = field(default_factory=SeasonRules)
    carry: Mapping[int, int] = field(default_factory=dict)
    entries: dict[int, Entry] = field(default_factory=dict)
    elo_states: dict[int, PlayerState] = field(default_factory=dict)
    lines: list[GameLine] = field(default_factory=list)
    # The live stage keeps no lines (a player's page rebuilds them, ``player_lines``): only each game's leagues
    # before it, in seat order (``leagues_code``).
    keep_lines: bool = True
    leagues_before: list[tuple[int, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._elo = EloPlan(states=self.elo_states, config=self.rules.elo, hanabi_rules=None)

    def entry(self, player_id: int) -> Entry:
        found = self.entries.get(player_id)
        if found is None:
            found = self.entries[player_id] = start_entry(player_id, self.carry.get(player_id), self.rules)
        return found

    def apply_game(self, game: RatedGame) -> None:
        """Points, placement and promotion for every seat, all from the leagues BEFORE the game; then season Elo."""
        seats = placed_seats(game)
        entries = [self.entry(seat[0]) for seat in seats]
        before = [entry.league for entry in entries]
        words = game_points(seats, before) if self.keep_lines else None
        gains = [sum(p for _, _, p in w) for w in words] if words is not None else game_gains(seats, before)
        for index, ((player_id, _, place, _), entry) in enumerate(zip(seats, entries, strict=True)):
            gained = gains[index]
            entry.points += gained
            entry.games += 1
            if entry.placement_left:
                entry.placement_left -= 1
            if not entry.placement_left:
                entry.league = league_of(entry.points)
            if words is not None:
                self.lines.append(
                    GameLine(
                        game.id,
                        player_id,
                        game.finished_at,
                        place,
                        1 + max(s[1] for s in seats),
                        tuple(words[index]),
                        gained,
                        entry.league,
                    )
                )
        self.leagues_before.append((game.id, leagues_code(before)))
        self._elo.apply_game(game, 0)
        self._elo.changes.clear()

    def season_elo(self, player_id: int) -> float:
        state = self.elo_states.get(player_id)
        return state.elo if state is not None else self.rules.elo.initial


def _sides(
    seats: Sequence[tuple[int, int, int, bool]], before: Sequence[int | None]
) -> tuple[list[int], list[int], list[str]]:
    """Each side's place, weighting league and shown name ("placement" when all its members are in placement)."""
    count = 1 + max(seat[1] for seat in seats)
    places = [0] * count
    members: list[list[int | None]] = [[] for _ in range(count)]
    for (_, side, place, _), league in zip(seats, before, strict=True):
        places[side] = place
        members[side].append(league)
    leagues = [side_league(m) for m in members]
    names = [
        "placement" if all(x is None for x in m) else LEAGUES[league]
        for league, m in zip(leagues, members, strict=True)
    ]
    return places, leagues, names


def game_points(
    seats: Sequence[tuple[int, int, int, bool]], before: Sequence[int | None]
) -> list[list[tuple[str, str, int]]]:
    """Per seat, what each opposing side gave it: (that side's league name, "win"/"tie"/"loss", points), from
    the seats' leagues ``before`` the game (docs/seasons.md "Season points")."""
    places, leagues, names = _sides(seats, before)
    per_side: list[list[tuple[str, str, int]]] = []
    for s, mine in enumerate(places):
        gains = []
        for t, theirs in enumerate(places):
            if s == t:
                continue
            outcome, pair = ("win", WIN_PAIR) if mine < theirs else ("tie", TIE_PAIR) if mine == theirs else ("loss", 0)
            gains.append((names[t], outcome, pair * weight(leagues[t])))
        per_side.append(gains)
    return [per_side[seat[1]] for seat in seats]


def game_gains(seats: Sequence[tuple[int, int, int, bool]], before: Sequence[int | None]) -> list[int]:
    """Per seat, the points the game gives (``game_points`` summed, without the words: the live stage's path)."""
    count = 1 + max(seat[1] for seat in seats)
    if count == len(seats):  # one player a side: no means to take
        weights = [BASE_WEIGHT + (league or 0) for league in before]
        places = [seat[2] for seat in seats]
    else:
        places, leagues, _ = _sides(seats, before)
        weights = [BASE_WEIGHT + league for league in leagues]
    side_gain: list[int] = []
    for mine in places:
        gained = 0
        for theirs, w in zip(places, weights, strict=True):
            if mine < theirs:
                gained += WIN_PAIR * w
            elif mine == theirs:
                gained += TIE_PAIR * w
        side_gain.append(gained - TIE_PAIR * weights[len(side_gain)])  # a side ties itself: take that back
    if count == len(seats):
        return side_gain
    return [side_gain[seat[1]] for seat in seats]


def placed_seats(game: RatedGame) -> list[tuple[int, int, int, bool]]:
    """The game's seats, each with its place: a rated game has every place, so a seat without one is a reading
    error, refused here rather than counted as a place."""
    seats = []
    for player_id, side, place, quit_ in game.seats:
        if place is None:
            raise ValueError(f"game {game.id} was read with a seat without a place")
        seats.append((player_id, side, place, quit_))
    return seats


def leagues_code(leagues: Sequence[int | None]) -> str:
    """The seats' leagues before a game as one short string, a character a seat: "-" placement, "0".."5"."""
    return "".join("-" if league is None else str(league) for league in leagues)


def leagues_decode(code: str) -> list[int | None]:
    return [None if c == "-" else int(c) for c in code]


def player_lines(player_id: int, start: Entry, games: Iterable[tuple[RatedGame, str]]) -> list[GameLine]:
    """A player's game lines rebuilt from their counted games in rating order, each with the seats' leagues before
    it (``leagues_code``), from the entry they started the season with: what ``SeasonPlay`` wrote for them."""
    entry = Entry(player_id, start.points, start.games, start.placement_left, start.league, start.start_league)
    out = []
    for game, code in games:
        seats = placed_seats(game)
        before = leagues_decode(code)
        index = next(i for i, seat in enumerate(seats) if seat[0] == player_id)
        gain = game_points(seats, before)[index]
        gained = sum(p for _, _, p in gain)
        entry.points += gained
        entry.games += 1
        if entry.placement_left:
            entry.placement_left -= 1
        if not entry.placement_left:
            entry.league = league_of(entry.points)
        out.append(
            GameLine(
                game.id,
                player_id,
                game.finished_at,
                seats[index][2],
                1 + max(s[1] for s in seats),
                tuple(gain),
                gained,
                entry.league,
            )
        )
    return out


def start_entry(player_id: int, carried: int | None, rules: SeasonRules) -> Entry:
    """A player's entry at the season's start: a carried league above bronze starts at its threshold, placed;
    everyone else starts at 0 points with the placement games to play (docs/seasons.md "Carry-over")."""
    if carried:
        return Entry(player_id, points=THRESHOLDS[carried], placement_left=0, league=carried, start_league=carried)
    return Entry(player_id, placement_left=rules.placement_games, league=0 if not rules.placement_games else None)


def season_replay(
    games: Iterable[RatedGame], *, carry: Mapping[int, int] | None = None, rules: SeasonRules | None = None
) -> SeasonPlay:
    """The season from its rated games in rating order: what the live standings must equal."""
    play = SeasonPlay(rules=rules or SeasonRules(), carry=dict(carry or {}))
    for player_id in play.carry:
        play.entry(player_id)
    for game in games:
        play.apply_game(game)
    return play


# Standings -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the standings (the API's ``standings[i]``); ``season_elo`` only in the top league."""

    rank: int
    player_id: int
    league: int | None
    points: int
    games: int
    placement_left: int
    season_elo: float | None
    relegation: bool


def order_key(league: int | None, points: int, elo: float) -> tuple[int, float]:
    """What ranks a player (higher first): the league (placement below bronze), then points, or in the top league
    the season Elo."""
    tier = -1 if league is None else league
    return (tier, elo if league == TOP else float(points))


def standings(
    entries: Iterable[Entry],
    season_elo: Mapping[int, float],
    *,
    excluded: Iterable[int] = (),
    initial: float = DEFAULT.initial,
) -> list[Row]:
    """Every entry not ``excluded`` (banned players), ranked: equal keys share a rank (1, 2, 2, 4) and are listed
    by player id. The relegation zone is the bottom ``ceil(20 %)`` of each league above bronze."""
    out = set(excluded)
    keyed = []
    for e in entries:
        if e.player_id in out:
            continue
        elo = season_elo.get(e.player_id, initial)
        keyed.append((order_key(e.league, e.points, elo), e, elo))
    keyed.sort(key=lambda item: (-item[0][0], -item[0][1], item[1].player_id))
    sizes: dict[int, int] = {}
    for _, e, _ in keyed:
        if e.league is not None:
            sizes[e.league] = sizes.get(e.league, 0) + 1
    seen: dict[int, int] = {}
    rows = []
    rank = 0
    previous = None
    for position, (key, e, elo) in enumerate(keyed, start=1):
        if key != previous:
            rank, previous = position, key
        relegation = False
        if e.league:
            seen[e.league] = seen.get(e.league, 0) + 1
            zone = math.ceil(sizes[e.league] * RELEGATION_SHARE)
            relegation = seen[e.league] > sizes[e.league] - zone
        rows.append(
            Row(
                rank,
                e.player_id,
                e.league,
                e.points,
                e.games,
                e.placement_left,
                elo if e.league == TOP else None,
                relegation,
            )
        )
    return rows


def league_sizes(rows: Iterable[Row]) -> list[int]:
    """How many ranked players each league holds, lowest league first."""
    sizes = [0] * len(LEAGUES)
    for row in rows:
        if row.league is not None:
            sizes[row.league] += 1
    return sizes


def carry_over(rows: Iterable[Row]) -> dict[int, int]:
    """Next season's carried leagues (above bronze only: bronze is where everyone else starts)."""
    carried = {}
    for row in rows:
        league = carry_league(row.league, row.relegation)
        if league:
            carried[row.player_id] = league
    return carried


def league_name(league: int | None) -> str:
    return "placement" if league is None else LEAGUES[league]


def window_start(*, position: int, total: int, limit: int) -> int:
    """First position of the ``limit``-long window around the player at 0-based ``position``: centred (an even
    limit shows one more row below), shifted to stay inside the standings (as the boards' ``around``)."""
    start = position - (limit - 1) // 2
    return max(0, min(start, total - limit))
