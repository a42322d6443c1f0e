"""The reference: a plain one-game-at-a-time replay of ratings.md over the bodies as they were posted.

Deliberately independent of ``ratings.services`` and ``ratings.plan``: it judges each body with the game's rules
module and feeds the pure rules (elo / hanabi / skill) in a simple loop, keyed by handle. Whatever the batch
worker does (batches, bulk writes, workers, crashes), its results must equal this loop's, bit for bit.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from arena.games import get_game
from arena.games.base import Entry, Result
from arena.models import Game
from ratings import hanabi
from ratings.config import elo_config, hanabot_below_rule
from ratings.elo import EloConfig, Standing, rate_sides
from ratings.models import HanabotRating, Rating, RatingChange
from ratings.skill import DEFAULT_SKILL, Skill, rate_skill

COMMON = {"player", "ip", "device", "score", "quit", "team"}


def config() -> EloConfig:
    # The constants as configured (the rules' defaults with the settings' overrides), not the maths.
    return elo_config()


def db_table() -> dict[tuple[str, int, int], float]:
    return {(c, n, s): e for c, n, s, e in HanabotRating.objects.values_list("variant_class", "team_size", "score",
                                                                           "elo")}


def ratable(body: Mapping[str, Any]) -> bool:
    """Whether Arena records this body as pending (rated and more than one player; nobody banned in tests)."""
    return body.get("rated", True) and len(body["players"]) > 1


@dataclass
class Replay:
    config: EloConfig = field(default_factory=config)
    # (handle, title) -> [elo, games, last_game_at]
    ratings: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    skills: dict[tuple[str, str], Skill] = field(default_factory=dict)
    # title -> history rows (handle, table_id or None, kind, before, after, delta, k, games_before, place)
    history: dict[str, list[tuple]] = field(default_factory=lambda: defaultdict(list))

    def play(self, bodies: Iterable[Mapping[str, Any]], table: Mapping[tuple[str, int, int], float] | None = None
             ) -> None:
        table = db_table() if table is None else table
        for body in bodies:
            if ratable(body):
                self._game(body, table)

    def _standing(self, handle: str, title: str) -> Standing:
        elo, games, _ = self.ratings.get((handle, title), (self.config.initial, 0, None))
        return Standing(elo, games)

    def _game(self, body: Mapping[str, Any], table: Mapping[tuple[str, int, int], float]) -> None:
        title = body["game"]
        entries = tuple(Entry(p["player"], p.get("score"), p.get("quit", False), p.get("team"),
                              {k: v for k, v in p.items() if k not in COMMON}) for p in body["players"])
        rules = get_game(title)
        ranking = rules.judge(Result(body.get("variant", {}), body.get("rated", True), entries,
                                     body.get("details", {})))
        finished_at = parse_datetime(body["finished_at"])
        if rules.cooperative:
            members = [(e.player, self._standing(e.player, title)) for e in entries]
            changes = hanabi.rate_team(members, hanabi.variant_class(ranking.variant["deck"]), ranking.coop_score,
                                       table, hanabot_below_rule(), self.config)
        else:
            sides = [[(h, self._standing(h, title)) for h in side.players] for side in ranking.sides]
            places = [side.place for side in ranking.sides]
            changes = rate_sides(sides, places, ranking.rec, ranking.quitter, self.config)
            skill_sides = [[(h, self.skills.get((h, title), DEFAULT_SKILL)) for h in side.players]
                           for side in ranking.sides]
            for handle, skill in rate_skill(skill_sides, places).items():
                self.skills[(handle, title)] = skill
        place_of = ranking.places
        for e in entries:
            ch = changes[e.player]
            self.history[title].append((e.player, body["table_id"], "game", ch.before, ch.after, ch.delta, ch.k,
                                        ch.games_before, place_of.get(e.player)))
            _, games, last = self.ratings.get((e.player, title), (None, 0, None))
            self.ratings[(e.player, title)] = [ch.after, games + 1,
                                               finished_at if last is None else max(last, finished_at)]

    def reset(self, handle: str) -> None:
        """A moderator's reset in every title the player has a rating in."""
        for (h, title), value in sorted(self.ratings.items()):
            if h == handle:
                self.history[title].append((h, None, "reset", value[0], self.config.initial,
                                            self.config.initial - value[0], None, value[1], None))
                value[0] = self.config.initial


def stored_ratings() -> dict[tuple[str, str], list[Any]]:
    return {(h, t): [e, g, at] for h, t, e, g, at in Rating.objects.values_list("player__handle", "title", "elo",
                                                                              "games", "last_game_at")}


def stored_skills() -> dict[tuple[str, str], Skill]:
    return {(h, t): Skill(mu, sigma) for h, t, mu, sigma in Rating.objects.filter(ts_mu__isnull=False)
            .values_list("player__handle", "title", "ts_mu", "ts_sigma")}


def stored_history() -> dict[str, list[tuple]]:
    """History per title in seq order, each game's rows in seat order (as the replay lists them)."""
    history: dict[str, list[tuple]] = defaultdict(list)
    position = {(g, p): pos for g, p, pos in
                Game.objects.values_list("id", "seats__player_id", "seats__position")}
    rows = RatingChange.objects.values_list("title", "seq", "game_id", "player_id", "player__handle",
                                            "game__table_id", "kind", "before", "after", "delta", "k",
                                            "games_before", "place")
    for title, _, _, _, *row in sorted(rows, key=lambda r: (r[0], r[1], position.get((r[2], r[3]), 0), r[4])):
        history[title].append(tuple(row))
    return history


def assert_matches(replay: Replay, *, trueskill: bool = False) -> None:
    """Every stored rating and history row equals the replay's, exactly (no tolerance)."""
    stored = stored_ratings()
    assert stored.keys() == replay.ratings.keys()
    for key, value in replay.ratings.items():
        assert stored[key] == value, key
    history = stored_history()
    assert history.keys() == {t for t, rows in replay.history.items() if rows}
    for title, rows in replay.history.items():
        assert history[title] == rows, title
    if trueskill:
        expected = {key: skill for key, skill in replay.skills.items()}
        assert stored_skills() == expected


def game_order_ok() -> None:
    """Order of arrival: within each title, rating_seq grows with the id (the order Arena accepted games)."""
    for title in set(Game.objects.values_list("title", flat=True)):
        seqs = list(Game.objects.filter(title=title, rating_seq__isnull=False).order_by("id")
                    .values_list("rating_seq", flat=True))
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), title


def parse(at: str) -> datetime:
    moment = parse_datetime(at)
    assert moment is not None
    return moment
