"""Reputation and the quit cool-down of docs/matchmaking.md ("Reputation", "Cool-down"): pure, no Django.

A player's recent games are kept as a short string of outcomes, oldest first: ``f`` finished, ``q`` quit. Why a
string: the Elo stage appends a batch's outcomes to every player's string in one statement (the database
concatenates), so reputation costs the stage no read and no extra query per game; reading it is a count of
characters.

- **Reputation**: the share of the last 100 rated games (any title) that the player did not quit, in percent,
  with the count; ``None`` under 10 games (too few to judge).
- **Cool-down** (after lichess's playban): a quit that makes 3 quits among the player's last 10 games starts a
  cool-down of 15 minutes from the game's finish. A repeat that starts within 24 hours of the previous cool-down's
  start lasts twice as long as that one (up to 24 hours); a later repeat lasts as long as the previous one; after
  7 days without a quit the next one is 15 minutes again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

FINISHED, QUIT = "f", "q"
# The reputation window: the last 100 rated games, any title.
WINDOW = 100
# Under this many games there is no reputation yet (None): ten games say little, fewer say nothing.
MIN_GAMES = 10
# Outcomes kept per player: the window, plus room for one batch's games, so that every quit of a batch is judged
# on the ten games before it even when the database already cut the string.
KEEP = 200
# 3 quits among the last 10 games start a cool-down.
COOLDOWN_QUITS = 3
COOLDOWN_GAMES = 10
FIRST_COOLDOWN = timedelta(minutes=15)
LONGEST_COOLDOWN = timedelta(hours=24)
# A repeat this soon after the previous cool-down started doubles it.
REPEAT_WITHIN = timedelta(hours=24)
# This long without a quit and the next cool-down is the first one again.
FORGIVEN_AFTER = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class Reputation:
    """``percent`` is None under MIN_GAMES games; ``games`` and ``quits`` count the window."""

    percent: float | None
    games: int
    quits: int


def reputation(recent: str) -> Reputation:
    """The reputation of a player whose outcomes (oldest first) are ``recent``."""
    window = recent[-WINDOW:]
    games = len(window)
    quits = window.count(QUIT)
    return Reputation(_percent(games, quits), games, quits)


def reputation_percent(recent: str) -> float | None:
    """``reputation(recent).percent`` alone: what a matchmaking pass reads for each of its thousands of waiting
    players (matchmaking/store/load.py), without building a frozen ``Reputation`` for each (most of that load's
    own time in a pool with reputations)."""
    window = recent[-WINDOW:]
    return _percent(len(window), window.count(QUIT))


def _percent(games: int, quits: int) -> float | None:
    return None if games < MIN_GAMES else 100.0 * (games - quits) / games


@dataclass(frozen=True, slots=True)
class Cooldown:
    """Where a player's cool-downs stand: the current one's end, its length and start, and the last quit."""

    until: datetime | None = None
    length: timedelta = timedelta(0)
    started_at: datetime | None = None
    last_quit_at: datetime | None = None


NONE = Cooldown()


def after_quit(state: Cooldown, last_games: str, at: datetime) -> Cooldown:
    """The state after a quit in a game finished ``at``; ``last_games``: the outcomes up to and including it."""
    if last_games[-COOLDOWN_GAMES:].count(QUIT) < COOLDOWN_QUITS:
        return replace(state, last_quit_at=at)
    if state.last_quit_at is None or state.started_at is None or at - state.last_quit_at >= FORGIVEN_AFTER:
        length = FIRST_COOLDOWN
    elif at - state.started_at < REPEAT_WITHIN:
        length = min(LONGEST_COOLDOWN, 2 * state.length)
    else:
        length = state.length
    until = at + length
    if state.until is not None and state.until > until:
        until = state.until  # a longer cool-down already running is never shortened
    return Cooldown(until=until, length=length, started_at=at, last_quit_at=at)


def fold(recent: str, state: Cooldown, outcomes: Iterable[tuple[bool, datetime]]) -> tuple[str, Cooldown]:
    """``recent`` and ``state`` after the games ``outcomes`` (quit?, finished_at), in the order they were rated."""
    for quit_, at in outcomes:
        recent += QUIT if quit_ else FINISHED
        if quit_:
            state = after_quit(state, recent, at)
    return recent[-KEEP:], state


def seconds_left(state: Cooldown, now: datetime) -> int:
    """Whole seconds until the cool-down ends (rounded up), 0 when none runs: ``retry_after`` of a refused ticket."""
    if state.until is None or state.until <= now:
        return 0
    left = (state.until - now).total_seconds()
    return int(left) + (left > int(left))
