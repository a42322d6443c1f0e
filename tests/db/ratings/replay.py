"""The reference: docs/ratings.md and docs/games.md replayed one game at a time over the bodies as they were posted.

Written from the documents, independently of the code it checks: nothing here imports the rating rules
(``ratings.elo``, ``ratings.hanabi``, ``ratings.skill``, ``ratings.plan``, ``ratings.elo_batch``), the games' judge
functions (``arena.games``) or reads a rating setting. Every constant below is typed in from docs/ratings.md, the
places are worked out from docs/games.md, and TrueSkill is the ``trueskill`` package called directly with the
documented defaults. If the code's maths, a setting or a game's places drift from the documents, the batch stops
matching this loop and the property, rebuild and worker tests fail.

It reads from the database only the stored results it compares against and the Hanabot table, which is data
(moderators edit it; the rating of a game is defined against the table as it stood when the game was rated).

Floats are compared to within ``TOLERANCE``: this loop adds the same terms in its own order, so the last bits of
a double may differ from the batch's. Any real disagreement (a K of 41 instead of 40, a wrong place, a missed
penalty) is many orders of magnitude larger.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import trueskill
from django.utils.dateparse import parse_datetime

from arena.models import Game
from ratings.models import HanabotRating, Rating, RatingChange

# --- docs/ratings.md, typed in --------------------------------------------------------------------------------
R0 = 1500.0  # a new player's rating
K_BY_GAMES = ((10, 60), (20, 40), (None, 20))  # rated games before this one: < 10 -> 60, < 20 -> 40, else 20
QUIT_PENALTY = 10.0  # the quitter's extra loss, after its delta
FLOOR: float | None = None  # no floor by default
# Recommended number of sides (docs/games.md); Spades in partnerships counts its two teams.
REC = {"wizard": 4, "tokaido": 4, "spades": 4, "railroad_ink": 4, "nile": 4}
SPADES_PARTNERSHIP_REC = 2
# Hanabi: deck -> (variant class, perfect score, threshold).
HANABI_DECKS = {"normal": ("50", 25, 18), "tricky": ("60", 30, 21), "very_difficult": ("60m", 30, 21)}
HANABOT_BELOW = 1000.0  # the bot's rating below the threshold (the default rule: still a tie)
TIE_WITH_1000, LOSE_TO_WEAKEST = "tie_with_1000", "lose_to_weakest"
# TrueSkill: the package's documented defaults.
TS_ENV = trueskill.TrueSkill(mu=25.0, sigma=25.0 / 3, beta=25.0 / 6, tau=25.0 / 300, draw_probability=0.10)
TS_START = (25.0, 25.0 / 3)

TOLERANCE = 1e-9


def k_for(games_before: int) -> int:
    for below, k in K_BY_GAMES:
        if below is None or games_before < below:
            return k
    raise AssertionError("unreachable")


def expected(a: float, b: float) -> float:
    """E(a, b) = 1 / (1 + 10^((b - a) / 400))."""
    return 1 / (1 + 10 ** ((b - a) / 400))


def multiplier(n: int, rec: int) -> float:
    """P(n) = 2 / n up to rec sides, then 2 (rec - 1) / (rec (n - 1))."""
    return 2 / n if n <= rec else 2 * (rec - 1) / (rec * (n - 1))


def rank_key(title: str, entry: Mapping[str, Any]) -> tuple:
    """What makes a result better in docs/games.md, as a tuple where higher is better."""
    if title == "tokaido":
        return (entry["score"], entry["achievements"])  # then more achievement cards
    if title == "railroad_ink":
        return (entry["score"], -entry["errors"])  # then fewer errors
    if title == "nile":
        return tuple(sorted(entry["crops"]))  # smallest pile first, then the next, ...
    return (entry["score"],)


def sides_and_places(title: str, players: Sequence[Mapping[str, Any]]) -> tuple[list[list[str]], list[int]]:
    """Sides (a Spades partnership is one side; everyone else alone) and their places: competition ranking
    (1, 2, 2, 4) among the sides that did not quit, and the quitter's side alone last."""
    if title == "spades" and all(p.get("team") is not None for p in players):
        teams: dict[str, list[Mapping[str, Any]]] = {}
        for p in players:
            teams.setdefault(str(p["team"]), []).append(p)
        groups = list(teams.values())
    else:
        groups = [[p] for p in players]
    quitting = [i for i, group in enumerate(groups) if any(p.get("quit") for p in group)]
    keys = {i: rank_key(title, group[0]) for i, group in enumerate(groups) if i not in quitting}
    places = [
        len(groups) if i in quitting else 1 + sum(1 for other in keys.values() if other > keys[i])
        for i in range(len(groups))
    ]
    return [[p["player"] for p in group] for group in groups], places


def db_table() -> dict[tuple[str, int, int], float]:
    return {
        (c, n, s): e for c, n, s, e in HanabotRating.objects.values_list("variant_class", "team_size", "score", "elo")
    }


def ratable(body: Mapping[str, Any]) -> bool:
    """Rated when sent rated and with more than one player (nobody is banned in these tests)."""
    return body.get("rated", True) and len(body["players"]) > 1


@dataclass(frozen=True)
class _Change:
    before: float
    after: float
    delta: float
    k: int
    games_before: int


@dataclass
class Replay:
    below_rule: str = TIE_WITH_1000
    # (handle, title) -> [elo, games, last_game_at]
    ratings: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    # (handle, title) -> (mu, sigma)
    skills: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    # title -> history rows (handle, table_id or None, kind, before, after, delta, k, games_before, place)
    history: dict[str, list[tuple]] = field(default_factory=lambda: defaultdict(list))

    def play(
        self, bodies: Iterable[Mapping[str, Any]], table: Mapping[tuple[str, int, int], float] | None = None
    ) -> None:
        table = db_table() if table is None else table
        for body in bodies:
            if ratable(body):
                self._game(body, table)

    def _now(self, handle: str, title: str) -> tuple[float, int]:
        elo, games, _ = self.ratings.get((handle, title), (R0, 0, None))
        return elo, games

    def _change(self, handle: str, title: str, delta: float) -> _Change:
        before, games = self._now(handle, title)
        after = before + delta
        if FLOOR is not None and after < FLOOR:
            after = FLOOR
            delta = after - before
        return _Change(before, after, delta, k_for(games), games)

    def _competitive(self, title: str, body: Mapping[str, Any]) -> tuple[dict[str, _Change], dict[str, int]]:
        players = body["players"]
        sides, places = sides_and_places(title, players)
        n = len(sides)
        team_partnership = title == "spades" and n == 2
        rec = SPADES_PARTNERSHIP_REC if team_partnership else REC[title]
        means = [sum(self._now(h, title)[0] for h in side) / len(side) for side in sides]
        quitter = next((p["player"] for p in players if p.get("quit")), None)
        everyone_tied = len(set(places)) == 1
        changes: dict[str, _Change] = {}
        for s, side in enumerate(sides):
            total = 0.0
            for t in range(n):
                if t == s:
                    continue
                score = 1.0 if places[s] < places[t] else 0.5 if places[s] == places[t] else 0.0
                total += score - expected(means[s], means[t])
            for handle in side:
                if everyone_tied:
                    changes[handle] = self._change(handle, title, 0.0)
                    continue
                delta = k_for(self._now(handle, title)[1]) * multiplier(n, rec) * total
                if handle == quitter:
                    delta -= QUIT_PENALTY
                changes[handle] = self._change(handle, title, delta)
        place_of = {h: places[i] for i, side in enumerate(sides) for h in side}
        # TrueSkill from the same places, teams as teams.
        groups = [tuple(trueskill.Rating(*self.skills.get((h, title), TS_START)) for h in side) for side in sides]
        for side, new in zip(sides, TS_ENV.rate(groups, ranks=places), strict=True):
            for h, rating in zip(side, new, strict=True):
                self.skills[(h, title)] = (rating.mu, rating.sigma)
        return changes, place_of

    def _hanabi(self, body: Mapping[str, Any], table: Mapping[tuple[str, int, int], float]) -> dict[str, _Change]:
        players = body["players"]
        cls, perfect, threshold = HANABI_DECKS[body.get("variant", {}).get("deck", "normal")]
        score = 0 if body.get("details", {}).get("strikes") == 3 else players[0]["score"]
        size = len(players)
        team = sum(self._now(p["player"], "hanabi")[0] for p in players) / size
        if score >= threshold:
            bot, outcome = table[(cls, size, score)], 0.5
        elif self.below_rule == TIE_WITH_1000:
            bot, outcome = HANABOT_BELOW, 0.5
        else:
            bot, outcome = table[(cls, size, threshold)], 0.0
        e = expected(team, bot)
        if score == perfect and 0.5 - e < 0:
            outcome = 1.0
        return {
            p["player"]: self._change(p["player"], "hanabi", k_for(self._now(p["player"], "hanabi")[1]) * (outcome - e))
            for p in players
        }

    def _game(self, body: Mapping[str, Any], table: Mapping[tuple[str, int, int], float]) -> None:
        title = body["game"]
        if title == "hanabi":
            changes, place_of = self._hanabi(body, table), {}
        else:
            changes, place_of = self._competitive(title, body)
        finished_at = parse(body["finished_at"])
        for p in body["players"]:
            handle = p["player"]
            ch = changes[handle]
            self.history[title].append(
                (
                    handle,
                    body["table_id"],
                    "game",
                    ch.before,
                    ch.after,
                    ch.delta,
                    ch.k,
                    ch.games_before,
                    place_of.get(handle),
                )
            )
            _, games, last = self.ratings.get((handle, title), (None, 0, None))
            self.ratings[(handle, title)] = [
                ch.after,
                games + 1,
                finished_at if last is None else max(last, finished_at),
            ]

    def reset(self, handle: str) -> None:
        """A moderator's reset in every title the player has a rating in: back to R0, games kept."""
        for (h, title), value in sorted(self.ratings.items()):
            if h == handle:
                self.history[title].append((h, None, "reset", value[0], R0, R0 - value[0], None, value[1], None))
                value[0] = R0


def stored_ratings() -> dict[tuple[str, str], list[Any]]:
    return {
        (h, t): [e, g, at]
        for h, t, e, g, at in Rating.objects.values_list("player__handle", "title", "elo", "games", "last_game_at")
    }


def stored_skills() -> dict[tuple[str, str], tuple[float, float]]:
    return {
        (h, t): (mu, sigma)
        for h, t, mu, sigma in Rating.objects.filter(ts_mu__isnull=False).values_list(
            "player__handle", "title", "ts_mu", "ts_sigma"
        )
    }


def stored_history() -> dict[str, list[tuple]]:
    """History per title in seq order, each game's rows in seat order (as the replay lists them)."""
    history: dict[str, list[tuple]] = defaultdict(list)
    position = {(g, p): pos for g, p, pos in Game.objects.values_list("id", "seats__player_id", "seats__position")}
    rows = RatingChange.objects.values_list(
        "title",
        "seq",
        "game_id",
        "player_id",
        "player__handle",
        "game__table_id",
        "kind",
        "before",
        "after",
        "delta",
        "k",
        "games_before",
        "place",
    )
    for title, _, _, _, *row in sorted(rows, key=lambda r: (r[0], r[1], position.get((r[2], r[3]), 0), r[4])):
        history[title].append(tuple(row))
    return history


def close(a: Any, b: Any) -> bool:
    """Equal, floats to within TOLERANCE; tuples and lists element by element."""
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, int | float)
            and isinstance(b, int | float)
            and math.isclose(a, b, rel_tol=0.0, abs_tol=TOLERANCE)
        )
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def assert_matches(replay: Replay, *, trueskill: bool = False) -> None:
    """Every stored rating and history row equals the replay's (floats to within TOLERANCE)."""
    stored = stored_ratings()
    assert stored.keys() == replay.ratings.keys()
    for key, value in replay.ratings.items():
        assert close(stored[key], value), (key, stored[key], value)
    history = stored_history()
    assert history.keys() == {t for t, rows in replay.history.items() if rows}
    for title, rows in replay.history.items():
        assert len(history[title]) == len(rows), title
        for got, want in zip(history[title], rows, strict=True):
            assert close(got, want), (title, got, want)
    if trueskill:
        assert_skills_match(replay)


def assert_skills_match(replay: Replay) -> None:
    """Every stored TrueSkill belief equals the replay's (to within TOLERANCE)."""
    skills = stored_skills()
    assert skills.keys() == replay.skills.keys()
    for key, value in replay.skills.items():
        assert close(skills[key], value), (key, skills[key], value)


def game_order_ok() -> None:
    """Order of arrival: within each title, rating_seq grows with the id (the order Arena accepted games)."""
    for title in set(Game.objects.values_list("title", flat=True)):
        seqs = list(
            Game.objects.filter(title=title, rating_seq__isnull=False)
            .order_by("id")
            .values_list("rating_seq", flat=True)
        )
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), title


def parse(at: str) -> datetime:
    moment = parse_datetime(at)
    assert moment is not None
    return moment
