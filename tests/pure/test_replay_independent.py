"""tests/db/ratings/replay.py stays a second, independent reading of docs/ratings.md: if it imported the rules it
checks, or read their settings, the property, rebuild and worker tests would prove only batch = sequential."""

from __future__ import annotations

import ast
from pathlib import Path

REPLAY = Path(__file__).resolve().parents[1] / "db" / "ratings" / "replay.py"
# The code under test: the rating rules and stages, and the games' judges.
FORBIDDEN = (
    "ratings.elo",
    "ratings.hanabi",
    "ratings.skill",
    "ratings.plan",
    "ratings.config",
    "ratings.stages",
    "ratings.elo_batch",
    "ratings.trueskill_batch",
    "ratings.resets",
    "ratings.rebuild",
    "ratings.store",
    "arena.games",
    "django.conf",
)


def imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_replay_imports_none_of_the_code_it_checks():
    modules = imported_modules(ast.parse(REPLAY.read_text(encoding="utf-8")))
    bad = sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))
    assert bad == []
    # The checker itself would catch one (a test that cannot fail proves nothing).
    assert imported_modules(ast.parse("from ratings import elo\nimport arena.games.base")) >= {
        "ratings.elo",
        "arena.games.base",
    }


def test_the_replay_reads_no_rating_setting():
    text = REPLAY.read_text(encoding="utf-8")
    assert "ELO_" not in text and "HANABOT_BELOW_THRESHOLD" not in text and "settings." not in text
