"""What every game shares: the generic checks and the place arithmetic (the result value objects and the
refusal are ``arena.games.results``, imported from there by every user).

Why one base: every game needs the same checks (variant options, player count, duplicates, one quitter,
declared per-player fields) and the same places (competition ranking, the quitter moved alone to last).
Writing them once means a game module states only what is particular to it, and a seventh game is one
small file.

No Django here on purpose: the same pure function serves the API, the rating worker, the rebuild command and
the tests, so a result is judged identically everywhere.
"""

from __future__ import annotations

import dataclasses
import difflib
import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar, Protocol

from arena.games.results import Entry, Ranking, Result, RuleViolation, Side

__all__ = [
    "COMMON_ENTRY_KEYS",
    "FieldSpec",
    "GameRules",
    "IntField",
    "check_totals",
    "competition_places",
    "detail_int",
    "detail_list",
    "detail_mapping",
    "detail_players",
    "detail_record",
    "is_int",
    "path",
]


# ----------------------------------------------------------------------------------------------------
# Small helpers shared by the game modules
# ----------------------------------------------------------------------------------------------------


def path(*parts: object) -> str:
    """JSON path of a value in the request body: ``path("players", 2, "score")`` is ``players.2.score``."""
    return ".".join(str(part) for part in parts)


def is_int(value: object) -> bool:
    """A JSON integer. ``bool`` is a subclass of ``int`` in Python, and ``true`` must not pass for 1."""
    return isinstance(value, int) and not isinstance(value, bool)


def competition_places(keys: Sequence[Any]) -> list[int]:
    """Place of each key, higher key better: equal keys share, and the next place skips (1, 2, 2, 4).

    Why competition ranking: a player's place then says how many players finished strictly ahead of them.
    """
    return [1 + sum(1 for other in keys if other > key) for key in keys]


class FieldSpec(Protocol):
    """A game-specific per-player field: whether it is required, and what makes a value acceptable."""

    @property
    def required(self) -> bool:
        """Whether every player's entry must carry the field."""
        ...

    def problem(self, value: Any, player_count: int) -> str | None:
        """A sentence saying what is wrong with ``value``, or None when it is acceptable."""
        ...

    def json_schema(self) -> dict[str, Any]:
        """The field as JSON Schema, as far as a schema can say it (not what depends on the player count)."""
        ...


@dataclasses.dataclass(frozen=True)
class IntField:
    """An integer per-player field within optional bounds (e.g. Tokaido achievements 0..7)."""

    minimum: int | None = None
    maximum: int | None = None
    required: bool = True

    def json_schema(self) -> dict[str, Any]:
        """The field as JSON Schema (``arena.games.schema``): what the API's contract says of it."""
        schema: dict[str, Any] = {"type": "integer"}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return schema

    def problem(self, value: Any, player_count: int) -> str | None:
        if not is_int(value):
            return "must be an integer"
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {self.minimum}"
        if self.maximum is not None and value > self.maximum:
            return f"must be at most {self.maximum}"
        return None


def detail_mapping(value: Any, where: str) -> Mapping[str, Any]:
    """The details value at ``where`` as an object, or the reason it is refused."""
    if not isinstance(value, Mapping):
        raise RuleViolation("invalid_details", f"{where} must be an object.", where)
    return value


def detail_list(value: Any, where: str) -> Sequence[Any]:
    """The details value at ``where`` as a list (a JSON string is not a list of rounds)."""
    if not isinstance(value, (list, tuple)):
        raise RuleViolation("invalid_details", f"{where} must be a list.", where)
    return value


def detail_int(
    value: Any, where: str, minimum: int | None = None, maximum: int | None = None, code: str = "invalid_details"
) -> int:
    """An integer in the details; ``code`` names the rule broken when it is out of range."""
    if not is_int(value):
        raise RuleViolation("invalid_details", f"{where} must be an integer.", where)
    if minimum is not None and value < minimum:
        raise RuleViolation(code, f"{where} is {value}; it must be at least {minimum}.", where)
    if maximum is not None and value > maximum:
        raise RuleViolation(code, f"{where} is {value}; it must be at most {maximum}.", where)
    checked: int = value
    return checked


def detail_record(
    value: Any, where: str, required: Collection[str], optional: Collection[str] = ()
) -> Mapping[str, Any]:
    """An object with exactly the ``required`` keys and perhaps some ``optional`` ones.

    Why refuse unknown keys: a misspelt key ("tricks" sent as "trick") would otherwise silently skip a check.
    """
    record = detail_mapping(value, where)
    for key in record:
        if key not in required and key not in optional:
            raise RuleViolation("invalid_details", f"Unknown key {key!r} in {where}.", path(where, key))
    for key in required:
        if key not in record:
            raise RuleViolation("invalid_details", f"{where} lacks {key!r}.", path(where, key))
    return record


def detail_players(value: Any, where: str, players: Sequence[str]) -> Mapping[str, Any]:
    """An object keyed by exactly the game's players (a per-round or per-player table in the details)."""
    table = detail_mapping(value, where)
    for key in table:
        if key not in players:
            raise RuleViolation(
                "unknown_player_in_details", f"{where} names {key!r}, who is not in this game.", path(where, key)
            )
    for player in players:
        if player not in table:
            raise RuleViolation("missing_player_in_details", f"{where} has no entry for {player!r}.", where)
    return table


def check_totals(entries: Sequence[Entry], totals: Mapping[str, int], source: str) -> None:
    """Every reported score must equal the total computed from the details (``source`` names them)."""
    for index, entry in enumerate(entries):
        if entry.score != totals[entry.player]:
            raise RuleViolation(
                "score_mismatch",
                f"{entry.player} reported {entry.score} but the {source} add up to {totals[entry.player]}.",
                path("players", index, "score"),
            )


# ----------------------------------------------------------------------------------------------------
# The game
# ----------------------------------------------------------------------------------------------------

# Keys of a player entry that are common to every game; ignored if the API leaves them in ``Entry.fields``.
COMMON_ENTRY_KEYS = frozenset({"player", "ip", "device", "score", "quit", "team"})


class GameRules:
    """A game's rules. Subclasses set the class attributes and override the few hooks that differ.

    Hooks, in the order ``judge`` calls them: ``check_teams`` (who may form teams), ``check`` (game-specific
    rules and details), ``side_groups`` (who rates together), ``rank_key`` (what makes a side better),
    ``recommended_sides`` and, for cooperative games, ``coop_score``.
    """

    # What is played, as an id: the code's ``title`` (model fields, arguments), the API's ``"game"`` field
    # (docs/architecture.md#names).
    title: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    # docs/games.md's recommended count; None for a cooperative game, which has no sides to count.
    recommended_players: ClassVar[int | None]
    # The size matchmaking forms a table at while everyone is fresh, where it is not ``recommended_players``: a
    # cooperative game has none of those (docs/matchmaking.md: Hanabi is matched at 3).
    table_recommended: ClassVar[int | None] = None
    cooperative: ClassVar[bool] = False
    # Whether a seat may name a ``team`` (Spades' partnerships, Hanabi's one table); ``check_teams`` says which.
    team_play: ClassVar[bool] = False
    has_leaderboard: ClassVar[bool] = True
    variants: ClassVar[Mapping[str, tuple[Any, ...]]] = {}
    score_required: ClassVar[bool] = True
    player_fields: ClassVar[Mapping[str, FieldSpec]] = {}
    details_keys: ClassVar[frozenset[str]] = frozenset()
    # The JSON Schema of each details key, for the API's contract (``arena.games.schema``); a key not listed is any
    # JSON value there, and its checks stay this module's.
    details_schema: ClassVar[Mapping[str, Mapping[str, Any]]] = {}

    def __repr__(self) -> str:
        return f"<GameRules {self.title}>"

    # -- the one public entry point ------------------------------------------------------------------

    def judge(self, result: Result) -> Ranking:
        """Check ``result`` against every rule of the game and work out its places; raises RuleViolation."""
        variant = self.normalise_variant(result.variant)
        entries = tuple(result.entries)
        self._check_entries(entries)
        self.check_teams(entries)
        details = self._check_details_keys(result.details)
        self.check(variant, result, details)

        quitter = next((entry.player for entry in entries if entry.quit), None)
        ratable = len(entries) > 1
        if self.cooperative:
            everyone = Side(tuple(entry.player for entry in entries), None)
            score = self.coop_score(variant, result, details)
            return Ranking(variant, (everyone,), None, quitter, ratable, score)
        sides = self._place_sides(self.side_groups(entries))
        return Ranking(variant, sides, self.recommended_sides(entries), quitter, ratable)

    # -- hooks ---------------------------------------------------------------------------------------

    def check_teams(self, entries: Sequence[Entry]) -> None:
        """Most games are played alone: any ``team`` is refused."""
        for index, entry in enumerate(entries):
            if entry.team is not None:
                raise RuleViolation(
                    "teams_not_allowed", f"{self.name} is not played in teams.", path("players", index, "team")
                )

    def check(self, variant: Mapping[str, Any], result: Result, details: Mapping[str, Any]) -> None:
        """Game-specific rules and the details; nothing by default."""

    def side_groups(self, entries: Sequence[Entry]) -> list[tuple[Entry, ...]]:
        """Who rates together: by default every player is a side of their own."""
        return [(entry,) for entry in entries]

    # The table sizes the simulated population plays (moderation/simulation.py); None: from the smaller of two and
    # ``min_players`` up to four (or ``max_players`` when fewer).
    simulated_sizes: ClassVar[tuple[int, int] | None] = None

    def simulated_table_sizes(self) -> tuple[int, int]:
        return self.simulated_sizes or (max(2, self.min_players), min(4, self.max_players))

    def simulated_result(self, n: int, rnd: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """A plausible finished game of ``n`` players for the simulated population (moderation/simulation.py): each
        place's own entry fields, best first, and the variant. The default, for a game that ranks by score: ``n``
        distinct scores from 0 to 99, best first; a cooperative game: one score for the whole table."""
        if self.cooperative:
            score = rnd.randint(0, 99)
            return [{"score": score} for _ in range(n)], {}
        return [{"score": score} for score in sorted(rnd.sample(range(100), n), reverse=True)], {}

    def rank_key(self, entry: Entry) -> tuple[Any, ...]:
        """What makes a side better (higher is better), read from its first member: by default the score."""
        return (entry.score,)

    def recommended_sides(self, entries: Sequence[Entry]) -> int | None:
        """The recommended number of sides for the Elo multiplier: by default one side per recommended player."""
        return self.recommended_players

    def coop_score(self, variant: Mapping[str, Any], result: Result, details: Mapping[str, Any]) -> int | None:
        """Cooperative games only: the score the team is rated on."""
        return result.entries[0].score if result.entries else None

    def implied_score(self, score: int | None, fields: Mapping[str, Any]) -> int | None:
        """The score an entry means when its optional score is left out (``arena.games.meaning``): by default the
        score as sent; a game whose score follows from other fields (Nile: the smallest pile) fills it in."""
        return score

    def implied_team(self, team: str | None) -> str | None:
        """The team an entry means: by default as sent; Hanabi's one team means nothing (its own rule)."""
        return team

    def player_range(self, variant: Mapping[str, Any]) -> tuple[int, int]:
        """The fewest and most players a game of this (normalised) variant takes: by default the game's; a variant
        may narrow them (Wizard's amigo). Matchmaking forms its tables within them (``matchmaking/sizes.py``)."""
        return self.min_players, self.max_players

    def rated_variant(self, variant: Mapping[str, Any]) -> bool:
        """Whether a game of this (normalised) variant may be recorded rated: by default every variant is."""
        return True

    # -- shared machinery ----------------------------------------------------------------------------

    def normalise_variant(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every option present with its default filled in, so stored games compare and pool alike."""
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise RuleViolation("invalid_variant", "The variant must be an object.", "variant")
        for name in raw:
            if name not in self.variants:
                raise RuleViolation(
                    "unknown_variant_option", f"{self.name} has no variant option {name!r}.", path("variant", name)
                )
        variant: dict[str, Any] = {}
        for name, allowed in self.variants.items():
            if name not in raw:
                variant[name] = allowed[0]
                continue
            value = raw[name]
            # Compare types too: JSON true must not pass for 1, nor 500.0 for 500.
            if not any(type(value) is type(choice) and value == choice for choice in allowed):
                choices = ", ".join(repr(choice) for choice in allowed)
                raise RuleViolation(
                    "invalid_variant", f"Variant option {name!r} must be one of {choices}.", path("variant", name)
                )
            variant[name] = value
        return variant

    def _check_entries(self, entries: Sequence[Entry]) -> None:
        count = len(entries)
        if not self.min_players <= count <= self.max_players:
            allowed = f"{self.min_players} to {self.max_players}"
            message = f"{self.name} takes {allowed} players, not {count}."
            raise RuleViolation("player_count", message, "players")
        seen: set[str] = set()
        quitters = 0
        for index, entry in enumerate(entries):
            if entry.player in seen:
                raise RuleViolation(
                    "duplicate_player", f"{entry.player} appears twice.", path("players", index, "player")
                )
            seen.add(entry.player)
            if entry.quit:
                quitters += 1
                if quitters > 1:
                    raise RuleViolation(
                        "too_many_quitters", "At most one player per game may quit.", path("players", index, "quit")
                    )
        try:
            for index, entry in enumerate(entries):
                self._check_score(index, entry)
                self._check_fields(index, entry, count)
        except RuleViolation as refusal:
            # Only a game already refused pays for the search for a typo, which answers it better when found.
            if refusal.code in ("missing_field", "unknown_field"):
                self._check_misspelt_fields(entries)
            raise

    def _check_misspelt_fields(self, entries: Sequence[Entry]) -> None:
        """A required field missing while an unknown one sits beside it is most likely a typo (``scroe``): name
        both, with the likely spelling, for every player at fault.

        The per-entry checks stop at the first problem they meet (the missing ``score``), which leaves the
        developer staring at a field they believe they sent. Only the two together are answered here; a lone
        unknown or a lone missing field is left to those checks (``unknown_field``, ``missing_field``).
        """
        problems: dict[str, str] = {}
        for index, entry in enumerate(entries):
            unknown = [key for key in entry.fields if key not in self.player_fields and key not in COMMON_ENTRY_KEYS]
            missing = [key for key, spec in self.player_fields.items() if spec.required and key not in entry.fields]
            if entry.score is None and self.score_required:
                missing.insert(0, "score")
            if not unknown or not missing:
                continue
            for key in missing:
                problems[path("players", index, key)] = "Required."
            for key in unknown:
                close = difflib.get_close_matches(str(key), missing, n=1, cutoff=0.7)
                problems[path("players", index, key)] = (
                    f"Unknown field; did you mean {close[0]}?" if close else "Unknown field."
                )
        if problems:
            raise RuleViolation(
                "missing_field",
                "A required field is missing and an unknown one sits beside it; see fields.",
                next(iter(problems)),
                problems,
            )

    def _check_score(self, index: int, entry: Entry) -> None:
        if entry.score is None:
            if self.score_required:
                raise RuleViolation("missing_field", f"{entry.player} has no score.", path("players", index, "score"))
        elif not is_int(entry.score):
            raise RuleViolation(
                "invalid_field", f"{entry.player}'s score must be an integer.", path("players", index, "score")
            )

    def _check_fields(self, index: int, entry: Entry, player_count: int) -> None:
        for key in entry.fields:
            if key not in self.player_fields and key not in COMMON_ENTRY_KEYS:
                raise RuleViolation(
                    "unknown_field", f"{self.name} has no player field {key!r}.", path("players", index, key)
                )
        for key, spec in self.player_fields.items():
            if key not in entry.fields:
                if spec.required:
                    raise RuleViolation("missing_field", f"{entry.player} has no {key!r}.", path("players", index, key))
                continue
            problem = spec.problem(entry.fields[key], player_count)
            if problem is not None:
                raise RuleViolation(
                    "invalid_field", f"{entry.player}'s {key!r} {problem}.", path("players", index, key)
                )

    def _check_details_keys(self, raw: Mapping[str, Any] | None) -> Mapping[str, Any]:
        details = detail_mapping({} if raw is None else raw, "details")
        for key in details:
            if key not in self.details_keys:
                raise RuleViolation(
                    "invalid_details", f"{self.name} details have no key {key!r}.", path("details", key)
                )
        return details

    def _place_sides(self, groups: Sequence[tuple[Entry, ...]]) -> tuple[Side, ...]:
        """Places by ``rank_key``, then the quitter's side alone below every other side.

        The other sides keep their order and are re-numbered among themselves, so a quitter who led does not
        leave a gap at the top (docs/ratings.md: "placed alone below every other side, whatever the scores").
        """
        quitting = next((i for i, group in enumerate(groups) if any(entry.quit for entry in group)), None)
        others = [i for i in range(len(groups)) if i != quitting]
        ranked = competition_places([self.rank_key(groups[i][0]) for i in others])
        places = dict(zip(others, ranked, strict=True))
        if quitting is not None:
            places[quitting] = len(groups)
        order = sorted(range(len(groups)), key=lambda i: (places[i], i))
        return tuple(Side(tuple(entry.player for entry in groups[i]), places[i]) for i in order)
