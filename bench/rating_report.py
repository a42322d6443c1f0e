"""The rating bench's verdict: each path's rate and its ratio against the issue's target, in wall and in CPU.

The CPU table is the one to trust on a busy machine (bench/cpu_clock.py); the wall table stays beside it because
an idle machine's wall figures are what docs/scaling.md quotes.
"""

from __future__ import annotations

import os
import statistics

from bench.harness import say

Row = tuple[str, float | None, str, str]


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def wall_rows(
    *,
    games: int,
    floor: float,
    batch: float,
    base: float,
    naive: tuple[int, float],
    skill: tuple[int, float, float],
    pair_ratios: list[float],
) -> list[Row]:
    """Games per second of each path, from its wall seconds; ``naive`` is (games, s), ``skill`` (games, stage s,
    bare s)."""
    floor_rate, batch_rate, base_rate = games / floor, games / batch, games / base
    naive_rate = naive[0] / naive[1]
    stage_rate, bare_rate = skill[0] / skill[1], skill[0] / skill[2]
    return [
        ("raw-SQL floor (writes only)", floor_rate, "", ""),
        ("naive ORM, 1 game/transaction", naive_rate, "", ""),
        (
            "Elo batch (elo_stage_run)",
            batch_rate,
            f"{batch_rate / floor_rate:.2f}x floor (>= 0.8)",
            verdict(batch_rate >= 0.8 * floor_rate),
        ),
        ("", None, f"{batch_rate / naive_rate:.1f}x naive (>= 10)", verdict(batch_rate >= 10 * naive_rate)),
        ("Elo batch without reputation", base_rate, "", ""),
        ("", None, f"{batch / base:.3f}x the time without (<= 1.05)", verdict(batch <= 1.05 * base)),
        ("", None, f"{statistics.median(pair_ratios):.3f}x per batch pair, median", ""),
        ("bare trueskill.rate loop", bare_rate, "", ""),
        (
            "TrueSkill stage",
            stage_rate,
            f"{stage_rate / bare_rate:.2f}x bare (>= 0.9)",
            verdict(stage_rate >= 0.9 * bare_rate),
        ),
    ]


def cpu_rows(*, games: int, skill_games: int, cpu: dict[str, float]) -> list[Row]:
    """The same ratios in CPU seconds (this process + its PostgreSQL backend), ``cpu`` keyed by path."""
    return [
        ("raw-SQL floor (writes only)", games / cpu["floor"], "", ""),
        (
            "Elo batch (elo_stage_run)",
            games / cpu["batch"],
            f"{cpu['floor'] / cpu['batch']:.2f}x floor (>= 0.8)",
            verdict(cpu["floor"] >= 0.8 * cpu["batch"]),
        ),
        ("", None, f"{cpu['batch'] / cpu['base']:.3f}x the CPU without reputation", ""),
        ("bare trueskill.rate loop", skill_games / cpu["bare"], "", ""),
        (
            "TrueSkill stage",
            skill_games / cpu["stage"],
            f"{cpu['bare'] / cpu['stage']:.2f}x bare (>= 0.9)",
            verdict(cpu["bare"] >= 0.9 * cpu["stage"]),
        ),
    ]


def report_print(wall: list[Row], cpu: list[Row]) -> None:
    say("")
    say(f"{'path':34} {'games/s':>10}  {'ratio':28} target")
    for label, rate, ratio, mark in wall:
        say(f"{label:34} {'' if rate is None else f'{rate:10,.0f}':>10}  {ratio:28} {mark}")
    say("")
    say(f"{'in CPU (process + backend)':34} {'games/s':>10}  {'ratio':28} target")
    for label, rate, ratio, mark in cpu:
        say(f"{label:34} {'' if rate is None else f'{rate:10,.0f}':>10}  {ratio:28} {mark}")
    say(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
