"""Random valid game bodies for every title, from hypothesis (shrinkable) or a plain seeded Random (fast, bulk).

One generator serves both: it asks a ``Picker`` for numbers, and the two pickers answer from hypothesis's
``draw`` or from ``random.Random``. Scores come from small ranges on purpose, so ties, shared places and
everyone-tied games happen often; player pools are small so one player meets another many times in a batch.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar

from hypothesis import strategies as st

from arena.games.nile import CROP_TYPES
from arena.games.wizard import AMIGO_CARDS

T = TypeVar("T")
TITLES = ("wizard", "hanabi", "tokaido", "spades", "railroad_ink", "nile")
_tables = itertools.count(1)
_addresses = itertools.count(1)
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


class Picker(Protocol):
    def int(self, lo: int, hi: int) -> int: ...
    def choice(self, seq: Sequence[T]) -> T: ...
    def sample(self, seq: Sequence[T], k: int) -> list[T]: ...


class RandomPicker:
    def __init__(self, rnd: random.Random):
        self.rnd = rnd

    def int(self, lo: int, hi: int) -> int:
        return self.rnd.randint(lo, hi)

    def choice(self, seq: Sequence[T]) -> T:
        return self.rnd.choice(list(seq))

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        return self.rnd.sample(list(seq), k)


class DrawPicker:
    def __init__(self, draw: Any):
        self.draw = draw

    def int(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def choice(self, seq: Sequence[T]) -> T:
        return self.draw(st.sampled_from(list(seq)))

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        return self.draw(st.permutations(list(seq)))[:k]


def _ip() -> str:
    n = next(_addresses)
    return f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"


def _entry(handle: str, score: int | None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"player": handle, "ip": _ip()}
    if score is not None:
        body["score"] = score
    body.update(extra)
    return body


def body(p: Picker, handles: Sequence[str], title: str | None = None) -> dict[str, Any]:
    """One valid game body of ``title`` (random title if None) among ``handles``."""
    title = title or p.choice(TITLES)
    low, high = {
        "wizard": (3, 6),
        "hanabi": (2, 5),
        "tokaido": (2, 5),
        "spades": (4, 4),
        "railroad_ink": (1, 6),
        "nile": (2, 6),
    }[title]
    count = p.int(low, min(high, len(handles)))
    names = p.sample(handles, count)
    variant: dict[str, Any] = {}
    details: dict[str, Any] = {}
    if title == "wizard":
        variant["rounds"] = p.choice(
            ["standard", "five_rounds", "amigo"] if count in AMIGO_CARDS else ["standard", "five_rounds"]
        )
        players = [_entry(n, p.choice([-20, 0, 40, 60, 100])) for n in names]
    elif title == "tokaido":
        players = [_entry(n, p.int(30, 32), achievements=p.int(0, 2)) for n in names]
    elif title == "railroad_ink":
        variant["expansion"] = p.choice(["none", "river", "lava"])
        players = [_entry(n, p.int(10, 12), errors=p.int(0, 1)) for n in names]
    elif title == "nile":
        piles = CROP_TYPES[count]
        players = [_entry(n, None, crops=[p.int(0, 2) for _ in range(piles)]) for n in names]
    elif title == "spades":
        if p.int(0, 1):
            team_of = p.choice([("N", "N", "S", "S"), ("N", "S", "N", "S"), ("N", "S", "S", "N")])
            score_of = dict(zip(("N", "S"), p.sample(range(-100, 400, 10), 2), strict=True))
            players = [_entry(n, score_of[t], team=t) for n, t in zip(names, team_of, strict=True)]
        else:
            # Distinct scores: Spades refuses a tie for first place, whoever quits.
            scores = p.sample(range(-100, 400, 10), 4)
            players = [_entry(n, s) for n, s in zip(names, scores, strict=True)]
    else:  # hanabi
        deck = p.choice(["normal", "tricky", "very_difficult", "normal"])
        top = 25 if deck == "normal" else 30
        score = p.choice([0, 5, 12, 17, 18, 20, 21, 22, 24, top])
        variant["deck"] = deck
        players = [_entry(n, score) for n in names]
        strikes = p.int(0, 4)
        if strikes < 4:
            details["strikes"] = strikes
    if count > 1 and p.int(0, 6) == 0:
        players[p.int(0, count - 1)]["quit"] = True
    out: dict[str, Any] = {
        "table_id": f"R-{next(_tables)}",
        "game": title,
        "players": players,
        "finished_at": (EPOCH + timedelta(minutes=p.int(0, 500_000))).isoformat().replace("+00:00", "Z"),
    }
    if variant:
        out["variant"] = variant
    if details:
        out["details"] = details
    if p.int(0, 11) == 0:
        out["rated"] = False
    return out


def handles(count: int, prefix: str = "p") -> list[str]:
    return [f"{prefix}{i}" for i in range(count)]


@st.composite
def bodies(
    draw: Any, *, min_size: int = 1, max_size: int = 30, titles: Sequence[str] = TITLES, pool: int = 9
) -> list[dict[str, Any]]:
    """A list of game bodies over a small pool of players, titles mixed."""
    picker = DrawPicker(draw)
    names = handles(pool)
    size = draw(st.integers(min_size, max_size))
    return [body(picker, names, picker.choice(titles)) for _ in range(size)]


def random_bodies(
    rnd: random.Random, count: int, *, titles: Sequence[str] = TITLES, pool: int = 40, prefix: str = "p"
) -> list[dict[str, Any]]:
    picker = RandomPicker(rnd)
    names = handles(pool, prefix)
    return [body(picker, names, picker.choice(titles)) for _ in range(count)]
