"""Computing ratings from rows: games and players' standings in, new standings and history rows out.

Lila's split: computing new ratings and saving them are separate steps. Nothing here touches the database, so
the batch worker, the rebuild and the tests fold games through the very same code, and a rebuild reproduces
the stored ratings bit for bit (same functions, same inputs, same order). The rules themselves live in
:mod:`ratings.elo`, :mod:`ratings.hanabi` and :mod:`ratings.skill`; this module only feeds them rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from ratings import hanabi
from ratings.elo import Change, EloConfig, Standing, rate_sides
from ratings.skill import DEFAULT_SKILL, Skill, rate_skill

# History kinds, as stored in RatingChange.kind.
KIND_GAME = "game"
KIND_RESET = "reset"

# A seat of a game to rate: (player_id, side index (0 = best side), place or None, quit). Not the recording's
# seat (arena.recording_store), which carries what a game server sent.
RatedSeat = tuple[int, int, "int | None", bool]


class RatedGame(NamedTuple):
    """What rating one game needs, read once from the database (seats in position order)."""

    id: int
    # The game's effective recommended number of sides: ``rec`` of docs/ratings.md's multiplier P(n).
    recommended_sides: int | None
    coop_score: int | None
    finished_at: datetime
    deck: str | None  # the Hanabot table's deck, read for cooperative titles only (None elsewhere)
    seats: list[RatedSeat]


class ChangeRow(NamedTuple):
    """One history row (RatingChange) before it is written; ``seq`` orders it within the title."""

    seq: int
    player_id: int
    game_id: int | None
    kind: str
    before: float
    after: float
    delta: float
    k: int | None
    games_before: int
    place: int | None
    finished_at: datetime
    opponent: float | None


# ChangeRow(...) goes through a Python-level __new__; _make is tuple.__new__ itself, which matters at 4 rows a game.
_make_change = ChangeRow._make


class PlayerState:
    """A player's Elo standing in one title while a plan runs; ``rating_id`` None means no Rating row yet."""

    __slots__ = ("elo", "games", "last_game_at", "rating_id")

    def __init__(self, rating_id: int | None, elo: float, games: int, last_game_at: datetime | None = None):
        self.rating_id = rating_id
        self.elo = elo
        self.games = games
        # Latest finished_at applied by THIS plan (the writer keeps the later of it and the stored value).
        self.last_game_at = last_game_at


@dataclass(frozen=True)
class HanabiRules:
    """The Hanabot table as loaded for one batch, and the below-threshold rule in force."""

    table: Mapping[tuple[str, int, int], float]
    below_rule: str


class EloPlan:
    """Folds games and resets, in order, into player standings and history rows.

    ``states`` holds every player the plan may meet (missing players start at ``config.initial`` with 0 games);
    it is updated in place so a player seen twice in one batch plays the second game with the first one's
    result, exactly as a one-game-at-a-time replay would. A plan rates one title: ``hanabi_rules`` is the
    Hanabot table of a cooperative title (ratings.stages.hanabi_rules), None for a competitive one.
    """

    def __init__(self, *, states: dict[int, PlayerState], config: EloConfig, hanabi_rules: HanabiRules | None):
        self.states = states
        self.config = config
        self.hanabi_rules = hanabi_rules
        self.changes: list[ChangeRow] = []
        self.touched: set[int] = set()

    def _state(self, player_id: int) -> PlayerState:
        state = self.states.get(player_id)
        if state is None:
            state = self.states[player_id] = PlayerState(None, self.config.initial, 0)
        return state

    def apply_game(self, game: RatedGame, seq: int, *, opponent: float | None = None) -> None:
        """Rate one game. ``opponent`` (rebuild only): the Hanabot rating this game met when first rated.

        A plan given the Hanabot table rates a cooperative title: every game is the team against the bot.
        """
        if self.hanabi_rules is not None:
            self._apply_hanabi(game, seq, opponent)
            return
        # The hot loop of the Elo stage (tens of thousands of games a second): plain locals, no helper calls.
        states = self.states
        seats = game.seats
        sides: list[list[tuple[int, Standing]]] = [[] for _ in seats]
        places = [0] * len(seats)
        count = 0
        quitter = None
        seat_states = []
        for player_id, side, place, quit_ in seats:
            state = states.get(player_id)
            if state is None:
                state = states[player_id] = PlayerState(None, self.config.initial, 0)
            seat_states.append(state)
            sides[side].append((player_id, Standing(state.elo, state.games)))
            if place is None:
                raise ValueError(f"competitive game {game.id} was read with a seat without a place")
            places[side] = place
            if side >= count:
                count = side + 1
            if quit_:
                quitter = player_id
        if count < len(seats):  # teams: fewer sides than seats
            del sides[count:], places[count:]
        if game.recommended_sides is None:
            raise ValueError(f"competitive game {game.id} was read without its recommended sides")
        changes = rate_sides(sides, places, game.recommended_sides, quitter, self.config)
        self._record(game, seq, seat_states, changes, None)

    def _apply_hanabi(self, game: RatedGame, seq: int, opponent: float | None) -> None:
        rules = self.hanabi_rules
        if rules is None:
            raise ValueError(f"cooperative game {game.id} rated by a plan without the Hanabot table")
        if game.deck is None or game.coop_score is None:
            raise ValueError(f"cooperative game {game.id} was read without its deck or its score")
        cls = hanabi.variant_class(game.deck)
        size = len(game.seats)
        score = game.coop_score
        table = rules.table
        if opponent is not None:
            # Replay against the bot the game met, whatever the table says today; bot_duel looks up either the
            # score's row or (older below-threshold rule) the threshold's row, so both map to that bot.
            table = {(cls, size, score): opponent, (cls, size, hanabi.THRESHOLD[cls]): opponent}
        bot, _ = hanabi.bot_duel(table, cls, size, score, rules.below_rule)
        states = [self._state(seat[0]) for seat in game.seats]
        members = [(seat[0], Standing(state.elo, state.games)) for seat, state in zip(game.seats, states, strict=True)]
        changes = hanabi.rate_team(members, cls, score, table, rules.below_rule, self.config)
        self._record(game, seq, states, changes, bot)

    def _record(
        self,
        game: RatedGame,
        seq: int,
        states: list[PlayerState],
        changes: Mapping[int, Change],
        opponent: float | None,
    ) -> None:
        append = self.changes.append
        touched = self.touched.add
        finished_at = game.finished_at
        game_id = game.id
        for (player_id, _, place, _), state in zip(game.seats, states):  # noqa: B905 - same length by construction
            change = changes[player_id]
            after = change.after
            append(
                _make_change(
                    (
                        seq,
                        player_id,
                        game_id,
                        KIND_GAME,
                        change.before,
                        after,
                        change.delta,
                        change.k,
                        change.games_before,
                        place,
                        finished_at,
                        opponent,
                    )
                )
            )
            state.elo = after
            state.games += 1
            last = state.last_game_at
            if last is None or finished_at > last:
                state.last_game_at = finished_at
            touched(player_id)

    def apply_reset(self, player_id: int, seq: int, at: datetime) -> None:
        """A moderator's reset: back to the initial rating, games played kept (docs/moderation.md)."""
        state = self._state(player_id)
        initial = self.config.initial
        self.changes.append(
            _make_change(
                (
                    seq,
                    player_id,
                    None,
                    KIND_RESET,
                    state.elo,
                    initial,
                    initial - state.elo,
                    None,
                    state.games,
                    None,
                    at,
                    None,
                )
            )
        )
        state.elo = initial
        self.touched.add(player_id)


class SkillState:
    """A player's TrueSkill belief while a plan runs; ``rating_id`` is the Rating row holding it."""

    __slots__ = ("rating_id", "skill")

    def __init__(self, rating_id: int | None, skill: Skill):
        self.rating_id = rating_id
        self.skill = skill


class SkillPlan:
    """Folds games, in order, into TrueSkill beliefs (teams as teams, places as in Elo)."""

    def __init__(self, *, states: dict[int, SkillState]):
        self.states = states
        self.touched: set[int] = set()

    def apply_game(self, game: RatedGame) -> None:
        states = self.states
        seats = game.seats
        count = 1 + max(seat[1] for seat in seats)
        sides: list[list[tuple[int, Skill]]] = [[] for _ in range(count)]
        places = [0] * count
        for player_id, side, place, _ in seats:
            state = states.get(player_id)
            if state is None:
                state = states[player_id] = SkillState(None, DEFAULT_SKILL)
            sides[side].append((player_id, state.skill))
            if place is None:
                raise ValueError(f"competitive game {game.id} was read with a seat without a place")
            places[side] = place
        for player_id, skill in rate_skill(sides, places).items():
            states[player_id].skill = skill
            self.touched.add(player_id)
