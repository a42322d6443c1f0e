"""A simulated population and its games, as API bodies, with the truth it planted; no framework.

``manage.py simulate`` posts these bodies through the real API (demo data, a load generator, and the ground truth
against which the tests measure detection's precision and recall). The population:

- honest players of mixed skill (a hidden strength; results are strength plus noise) over all six titles, each on
  their own address and device, now and then on a mobile address of their own;
- households: 2-4 people behind one address, each on their own device, who play each other now and then and
  mostly other people, with mixed results;
- cafés: one address many strangers use for some of their games (a school, an internet café);
- planted rings: one main and one to four alts, linked through the main's address or only through its device (the
  alts then come from addresses of their own), the alts losing to the main in one or two titles, some alts also
  playing a few games with strangers. The truth is the set of (main, title) the rings boosted.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from arena.games import all_games, get_game


def titles() -> tuple[str, ...]:
    """Every title, read from the registry at each build (a seventh game is simulated by its own rules'
    ``simulated_result``, never as another game)."""
    return tuple(game.title for game in all_games())


def competitive_titles() -> tuple[str, ...]:
    """Titles with places: a ring can only boost where someone places above someone else (Hanabi is cooperative)."""
    return tuple(game.title for game in all_games() if not game.cooperative)


# An alt sometimes wins a game against its main (a plausible-looking record), rarely enough to stay a feeder.
ALT_WIN_CHANCE = 0.04


@dataclass
class Mix:
    """Sizes of the population; the defaults are the "default mix" the tests measure against."""

    players: int = 150
    households: int = 12
    cafes: int = 1
    cafe_users: int = 12
    rings: int = 8
    games: int = 2500  # honest games (households' and cafés' included)
    ring_games: tuple[int, int] = (8, 16)  # per alt, in each boosted title
    stranger_share: float = 0.3  # share of alts that also play strangers (a few games)
    days: int = 60


@dataclass
class Person:
    handle: str
    skill: float
    ip: str
    device: str
    mobile: str


@dataclass
class Population:
    honest: list[Person] = field(default_factory=list)
    households: list[list[Person]] = field(default_factory=list)
    cafes: list[tuple[str, list[Person]]] = field(default_factory=list)
    rings: list[dict[str, Any]] = field(default_factory=list)


class Simulation:
    """Builds the population and its games from one seed: the same seed always gives the same bodies."""

    def __init__(self, mix: Mix, *, seed: int, prefix: str = "sim", now: datetime):
        self.mix, self.seed, self.prefix, self.now = mix, seed, prefix, now
        self.rnd = random.Random(seed)
        self.tables = 0
        self.addresses = 0
        self.pop = Population()
        self.bodies: list[dict[str, Any]] = []

    # -- people ----------------------------------------------------------------------------------------------

    def _address(self) -> str:
        self.addresses += 1
        n = self.addresses + (self.seed % 200) * 65536
        return f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"

    def _person(self, handle: str, skill: float | None = None, ip: str | None = None) -> Person:
        skill = self.rnd.gauss(0, 1) if skill is None else skill
        return Person(
            handle=f"{self.prefix}{self.seed}_{handle}",
            skill=skill,
            ip=ip or self._address(),
            device=f"dev-{self.prefix}{self.seed}-{handle}",
            mobile=self._address(),
        )

    def build(self) -> list[dict[str, Any]]:
        mix, pop = self.mix, self.pop
        pop.honest = [self._person(f"p{i}") for i in range(mix.players)]
        for h in range(mix.households):
            ip = self._address()
            pop.households.append([self._person(f"h{h}m{i}", ip=ip) for i in range(self.rnd.randint(2, 4))])
        for _ in range(mix.cafes):
            pop.cafes.append((self._address(), self.rnd.sample(pop.honest, min(mix.cafe_users, len(pop.honest)))))
        everyone = pop.honest + [p for house in pop.households for p in house]
        for r in range(mix.rings):
            main = self._person(f"r{r}main", skill=self.rnd.uniform(0.0, 1.5))
            by_device = r % 2 == 1
            alts = [
                self._person(f"r{r}alt{i}", skill=self.rnd.uniform(-1.5, 0.0), ip=None if by_device else main.ip)
                for i in range(self.rnd.randint(1, 4))
            ]
            titles = self.rnd.sample(competitive_titles(), 1 if self.rnd.random() < 0.7 else 2)
            pop.rings.append({"main": main, "alts": alts, "link": "device" if by_device else "ip", "titles": titles})
            everyone.append(main)
        self._honest_games(everyone)
        self._household_games(everyone)
        for ring in pop.rings:
            self._ring_games(ring, everyone)
        self.bodies.sort(key=lambda body: body["finished_at"])
        return self.bodies

    # -- games -----------------------------------------------------------------------------------------------

    def _when(self) -> str:
        at = self.now - timedelta(seconds=self.rnd.uniform(60, self.mix.days * 86400))
        return at.isoformat().replace("+00:00", "Z")

    def _seat(self, person: Person, *, ip: str | None = None, device: str | None = None) -> dict[str, Any]:
        return {
            "player": person.handle,
            "ip": ip or (person.mobile if self.rnd.random() < 0.1 else person.ip),
            "device": device or person.device,
        }

    def _strength(self, person: Person) -> float:
        return person.skill + self.rnd.gauss(0, 1.0)

    def _game(self, title: str, order: list[Person], seats: dict[str, dict[str, Any]] | None = None) -> None:
        """Append one body of ``title`` whose places follow ``order`` (best first)."""
        self.tables += 1
        seats = seats or {}
        players = [dict(seats.get(p.handle) or self._seat(p)) for p in order]
        n = len(players)
        results, variant = get_game(title).simulated_result(n, self.rnd)
        for entry, result in zip(players, results, strict=True):
            entry.update(result)
        self.rnd.shuffle(players)
        body: dict[str, Any] = {
            "table_id": f"{self.prefix}-{self.seed}-{self.tables}",
            "game": title,
            "players": players,
            "finished_at": self._when(),
        }
        if variant:
            body["variant"] = variant
        self.bodies.append(body)

    def _size(self, title: str) -> int:
        lo, hi = get_game(title).simulated_table_sizes()
        return self.rnd.randint(lo, hi)

    def _honest_games(self, everyone: list[Person]) -> None:
        cafe_of = {p.handle: ip for ip, users in self.pop.cafes for p in users}
        for _ in range(self.mix.games):
            title = self.rnd.choice(titles())
            table = self.rnd.sample(everyone, self._size(title))
            seats = {
                p.handle: self._seat(p, ip=cafe_of[p.handle])
                for p in table
                if p.handle in cafe_of and self.rnd.random() < 0.4
            }
            self._game(title, sorted(table, key=self._strength, reverse=True), seats)

    def _household_games(self, everyone: list[Person]) -> None:
        """Each household plays together now and then (a third of their games, the rest is above)."""
        for house in self.pop.households:
            for _ in range(self.rnd.randint(6, 14)):
                title = self.rnd.choice(titles())
                size = self._size(title)
                members = self.rnd.sample(house, min(len(house), size, self.rnd.randint(2, len(house))))
                others = [p for p in self.rnd.sample(everyone, size + len(house)) if p not in house]
                table = members + others[: size - len(members)]
                self._game(title, sorted(table, key=self._strength, reverse=True))

    def _ring_games(self, ring: dict[str, Any], everyone: list[Person]) -> None:
        main, alts = ring["main"], ring["alts"]
        strangers = [p for p in everyone if p is not main]
        shared_device = ring["link"] == "device"

        def alt_seat(alt: Person) -> dict[str, Any]:
            # Device-only rings: the alt plays on the main's machine from an address of its own.
            return self._seat(alt, ip=alt.ip, device=main.device if shared_device else alt.device)

        for title in ring["titles"]:
            for alt in alts:
                for _ in range(self.rnd.randint(*self.mix.ring_games)):
                    size = self._size(title)
                    others = [a for a in alts if a is not alt]
                    crew = [alt, *self.rnd.sample(others, min(len(others), max(size - 2, 0)))]
                    fill = self.rnd.sample(strangers, max(size - 1 - len(crew), 0))
                    seats = {a.handle: alt_seat(a) for a in crew}
                    if self.rnd.random() < ALT_WIN_CHANCE:
                        order = [alt, main, *crew[1:], *fill]
                    else:
                        # The main first whoever else sits in; below it the order is arbitrary: one person
                        # plays the alts and has no reason to rank them.
                        rest = [*crew, *fill]
                        self.rnd.shuffle(rest)
                        order = [main, *rest]
                    self._game(title, order, seats)
        for alt in alts:
            if self.rnd.random() < self.mix.stranger_share:
                for _ in range(self.rnd.randint(1, 2)):
                    title = self.rnd.choice(titles())
                    table = [alt, *self.rnd.sample(strangers, self._size(title) - 1)]
                    self._game(title, sorted(table, key=self._strength, reverse=True), {alt.handle: alt_seat(alt)})

    # -- truth -----------------------------------------------------------------------------------------------

    def truth(self) -> dict[str, Any]:
        """What was planted, by handle: the rings (and what they boosted), the households and the cafés."""
        rings = [
            {
                "main": r["main"].handle,
                "alts": [a.handle for a in r["alts"]],
                "link": r["link"],
                "titles": sorted(r["titles"]),
            }
            for r in self.pop.rings
        ]
        return {
            "seed": self.seed,
            "games": len(self.bodies),
            "planted": sorted([r["main"], t] for r in rings for t in r["titles"]),
            "rings": rings,
            "households": [[p.handle for p in house] for house in self.pop.households],
            "cafes": [[p.handle for p in users] for _ip, users in self.pop.cafes],
        }
