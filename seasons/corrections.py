"""Corrections to a closed season (docs/seasons.md, "Corrections after close"): the line each player whose final
place, league or points changed reads, and the reasons it names. Pure Python, like the rules it reports on."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from seasons.rules import league_name


@dataclass(frozen=True, slots=True)
class Final:
    """A player's final line as archived: what a correction compares."""

    rank: int
    league: int | None
    points: int


def correction_text(before: Final, after: Final | None, reason: str) -> str | None:
    """``"place 14 -> 13, points 212 -> 220: 3 games voided on 2027-02-03"``; None when nothing the player sees
    changed. A player whose every game was voided leaves the standings ("place 14 -> none")."""
    parts = []
    if after is None:
        parts.append(f"place {before.rank} -> none")
    else:
        if before.rank != after.rank:
            parts.append(f"place {before.rank} -> {after.rank}")
        if before.league != after.league:
            parts.append(f"league {league_name(before.league)} -> {league_name(after.league)}")
        if before.points != after.points:
            parts.append(f"points {before.points} -> {after.points}")
    if not parts:
        return None
    return f"{', '.join(parts)}: {reason}"


def void_reason(count: int, on: datetime) -> str:
    plural = "game" if count == 1 else "games"
    return f"{count} {plural} voided on {on.date().isoformat()}"


def late_reason(count: int) -> str:
    plural = "game" if count == 1 else "games"
    return f"{count} {plural} rated after the close"
