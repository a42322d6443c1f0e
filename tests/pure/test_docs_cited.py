"""Every rule a docstring cites lives in a page that exists: ``docs/<page>.md`` (and ``#anchor``, a heading there).

Scans every .py file of the repository (not the virtualenv, not generated files) for citations of the form
``docs/<name>.md`` or ``docs/<name>.md#<anchor>``; anchors are GitHub's heading slugs. And the other way: every
backticked name in docs/*.md that looks like this repository's code names something that exists (the rule is in
tests/pure/docs_names.py).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.pure import docs_names

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SKIP_DIRS = {".venv", ".git", "var", "node_modules", "__pycache__", ".hypothesis", ".ruff_cache", ".pytest_cache"}
CITATION = re.compile(r"docs/([A-Za-z0-9_.-]+?\.md)(?:#([A-Za-z0-9_-]+))?")


def python_files() -> list[Path]:
    found = []
    for directory, subdirs, files in os.walk(ROOT):
        subdirs[:] = [d for d in subdirs if d not in SKIP_DIRS]
        found.extend(Path(directory, name) for name in files if name.endswith(".py"))
    return sorted(found)


def citations(text: str) -> list[tuple[str, str | None]]:
    return [(page, anchor or None) for page, anchor in CITATION.findall(text)]


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("#")}


def all_citations() -> list[tuple[Path, str, str | None]]:
    return [
        (path, page, anchor)
        for path in python_files()
        for page, anchor in citations(path.read_text(encoding="utf-8", errors="replace"))
    ]


def test_the_scanner_reads_citations_with_and_without_anchors():
    text = 'see docs/ratings.md, "docs/games.md#wizard-wizard" and docs/api.md.'
    assert citations(text) == [("ratings.md", None), ("games.md", "wizard-wizard"), ("api.md", None)]
    assert slug("Wizard (`wizard`)") == "wizard-wizard"
    assert slug("K: how far one game can move a rating") == "k-how-far-one-game-can-move-a-rating"


def test_the_scan_sees_the_repository():
    files = {path.relative_to(ROOT).as_posix() for path in python_files()}
    assert "infra/announcements.py" in files and "tests/pure/test_docs_cited.py" in files
    assert not any(name.startswith(".venv/") for name in files)
    # The house already cites its pages: a scan that found none would prove nothing.
    assert len(all_citations()) >= 5


def test_every_cited_page_exists():
    missing = sorted(
        {f"{path.relative_to(ROOT)}: docs/{page}" for path, page, _ in all_citations() if not (DOCS / page).is_file()}
    )
    assert missing == []


def test_every_cited_anchor_is_a_heading_of_its_page():
    missing = sorted(
        {
            f"{path.relative_to(ROOT)}: docs/{page}#{anchor}"
            for path, page, anchor in all_citations()
            if anchor and (DOCS / page).is_file() and anchor not in anchors(DOCS / page)
        }
    )
    assert missing == []


@pytest.mark.parametrize(
    "page", ["README.md", "ratings.md", "games.md", "api.md", "moderation.md", "matchmaking.md", "architecture.md"]
)
def test_the_promised_pages_exist_and_the_index_lists_them(page):
    assert (DOCS / page).is_file()
    if page != "README.md":
        assert f"]({page})" in (DOCS / "README.md").read_text(encoding="utf-8")


def test_the_pages_link_only_to_pages_that_exist():
    for page in DOCS.glob("*.md"):
        for cited, _ in citations(page.read_text(encoding="utf-8")):
            assert (DOCS / cited).is_file(), f"{page.name} cites docs/{cited}"


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("arena/recording.py", None),
        ("ratings/store/", None),
        ("bench/pairing_bench.py --sizes 10", None),
        ("admin/charts.py", None),
        ("arena/recorder.py", "no such path"),
        ("charts2.py", "no such path"),
        ("ratings.plan.EloPlan", None),
        ("handoffs.hand_off(work, *args)", None),
        ("mode.redis_configured()", None),
        ("Game.rating_seq", None),
        ("GameRules.team_play", None),
        ("ratings.plan.EloPlann", "does not resolve"),
        ("handoffs.hand_over", "does not resolve"),
        ("Game.rating_sequence", "does not resolve"),
        ("game_server_scopes_set", None),
        ("wake_once(key, ttl=...)", None),
        ("RATING_BATCH_SIZE", None),
        ("no_season", None),
        ("arena_rating_batch_seconds_bucket", None),
        ("rate_pending", "named nowhere in the code"),
        ("ticket_opened(server)", "named nowhere in the code"),
        ("manage.py season_rollover", None),
        ("manage.py rate_pending", "no such command"),
        ("GET /api/v1/games/{id}/", None),
        ("/api/v1/", None),
        ("/readyz", None),
        ("GET /api/v1/gamez/", "no such endpoint"),
        ("DELETE /api/v1/games/{id}/", "no such endpoint"),
        # Not this repository's code: left alone.
        ("gunicorn.error", None),
        ("details.rounds", None),
        ("application/json", None),
        ("60/min", None),
        ("AppConfig.ready()", None),
        ("<app>/listeners.py", None),
        ("E(1500, 1500) = 0.5", None),
    ],
)
def test_the_name_rule_reads_each_kind(name, problem):
    assert docs_names.name_problem(name) == problem


def test_the_name_scan_sees_the_pages():
    names = {name for _, name in docs_names.doc_names()}
    assert {"infra/mode.py", "GamesRecorded", "POST /api/v1/games/"} <= names
    assert len(names) > 1000


def test_every_backticked_code_name_in_the_docs_exists():
    assert docs_names.problems() == []
