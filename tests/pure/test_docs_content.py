"""The documents say what the code does where a reader relies on them: the Hanabot table in docs/ratings.md is the
shipped table (ratings/data/hanabot.csv), and docs/api.md lists every error code the API can answer.

Only files inside the repository are read, so these checks run (and can fail) everywhere, never skip.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from arena.games.results import ERROR_CODES
from infra.api.errors import _DRF_CODES, BUSY, UNAVAILABLE

ROOT = Path(__file__).resolve().parents[2]
RATINGS = ROOT / "docs" / "ratings.md"
API = ROOT / "docs" / "api.md"
SHIPPED = ROOT / "ratings" / "data" / "hanabot.csv"
# Code paths whose literal error codes the API answers.
SOURCES = ["arena", "ratings", "leaderboards", "matchmaking"]
RAISES = re.compile(r"\b(?:InvalidInput|NotFound|Conflict|Forbidden|ArenaError|RuleViolation)\(\s*\"([a-z_]+)\"")


def docs_table() -> dict[tuple[str, int, int], float]:
    """The three Markdown tables under "Class 50", "Class 60" and "Class 60m" in docs/ratings.md."""
    table: dict[tuple[str, int, int], float] = {}
    cls: str | None = None
    sizes: list[int] = []
    for line in RATINGS.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^Class (50|60m|60) \(", line)
        if heading:
            cls, sizes = heading.group(1), []
            continue
        if cls is None or not line.startswith("|"):
            if sizes and not line.startswith("|"):
                cls, sizes = None, []
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0] == "score":
            sizes = [int(size) for size in cells[1:]]
        elif cells[0].isdigit():
            for size, elo in zip(sizes, cells[1:], strict=True):
                key = (cls, size, int(cells[0]))
                assert key not in table, key
                table[key] = float(elo)
    return table


def shipped_table() -> dict[tuple[str, int, int], float]:
    with SHIPPED.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {(r["variant_class"], int(r["team_size"]), int(r["score"])): float(r["hanabot_elo"]) for r in rows}


def test_the_docs_hanabot_table_is_the_shipped_table():
    docs = docs_table()
    # 50: scores 18..25, 60 and 60m: 21..30, each for teams of 2..5.
    assert len(docs) == 4 * 8 + 2 * 4 * 10
    assert docs == shipped_table()


def test_the_docs_table_holds_the_values_of_the_worked_examples():
    docs = docs_table()
    # docs/ratings.md examples 4 and 6, typed in.
    assert (docs[("50", 3, 22)], docs[("50", 2, 25)], docs[("50", 2, 24)]) == (1468.0, 2040.0, 1843.0)
    assert docs[("60m", 5, 30)] == 2180.0


def answered_codes() -> set[str]:
    codes = set(ERROR_CODES) | set(_DRF_CODES.values()) | {"server_error", "not_found", BUSY, UNAVAILABLE}
    for source in SOURCES:
        for path in (ROOT / source).rglob("*.py"):
            if "migrations" not in path.parts:
                codes.update(RAISES.findall(path.read_text(encoding="utf-8")))
    return codes


def test_the_scan_finds_the_codes_it_should():
    codes = answered_codes()
    assert {
        "table_conflict",
        "game_not_found",
        "no_leaderboard",
        "unknown_game",
        "missing_api_key",
        "player_not_ranked",
        "tie_not_allowed",
    } <= codes


def test_docs_api_lists_every_error_code():
    text = API.read_text(encoding="utf-8")
    missing = sorted(code for code in answered_codes() if f"`{code}`" not in text)
    assert missing == []
