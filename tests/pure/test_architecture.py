"""The house's shape (docs/architecture.md, "The one-way house"): the import contracts hold every room at its
height with no exception, every app is in them, the map names every room, and no module or function outgrows the
limits a reader can hold (450 lines, 90 lines).

`lint-imports` checks the imports against the contracts; these tests check the contracts themselves, which a
careless edit could loosen without any import failing.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.pure.house import APPS, LAYERS, ROOT

ARCHITECTURE = ROOT / "docs" / "architecture.md"
MODULE_LINES, FUNCTION_LINES = 450, 90


def linter() -> dict[str, Any]:
    config: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return dict(config["tool"]["importlinter"])


def packages() -> list[str]:
    """The repository's Python packages at the top (a folder with an __init__.py), tests and tools aside."""
    return sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name not in {"tests", "bench", "load"})


def app_modules() -> list[Path]:
    return sorted(p for app in APPS for p in (ROOT / app).rglob("*.py") if "migrations" not in p.parts)


def held_modules() -> list[Path]:
    """What the size limits hold: the apps, the project's configuration (config/, its settings by concern in
    config/sections/), the load generator, the scripts written in Python, and the benches."""
    scripts = [p for p in sorted((ROOT / "scripts").iterdir()) if p.is_file() and _is_python_script(p)]
    benches = sorted((ROOT / "bench").rglob("*.py"))
    return [
        *app_modules(),
        *sorted((ROOT / "config").rglob("*.py")),
        *sorted((ROOT / "load").rglob("*.py")),
        *scripts,
        *benches,
    ]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _is_python_script(path: Path) -> bool:
    """A script without the .py suffix, run by Python (its shebang says so), like scripts/layers."""
    with path.open("rb") as file:
        first = file.readline()
    return first.startswith(b"#!") and b"python" in first


def test_the_layers_are_the_house_infra_at_the_bottom_and_the_top_floor_on_top():
    contracts = [c for c in linter()["contracts"] if c["type"] == "layers"]
    assert len(contracts) == 1
    assert contracts[0]["layers"] == LAYERS


def test_no_contract_has_an_exception():
    for contract in linter()["contracts"]:
        assert not contract.get("ignore_imports"), contract["name"]
        assert not contract.get("unmatched_ignore_imports_alerting"), contract["name"]


def test_every_package_is_in_the_contracts_and_config_is_above_them_all():
    assert sorted([*APPS, "config"]) == packages()
    assert sorted(linter()["root_packages"]) == packages()
    forbidden = next(
        c for c in linter()["contracts"] if c["type"] == "forbidden" and c["forbidden_modules"] == ["config"]
    )
    assert sorted(forbidden["source_modules"]) == sorted(APPS)


def test_the_pure_rules_contract_forbids_the_frameworks_and_the_models():
    pure = next(c for c in linter()["contracts"] if c["name"] == "Pure rules import no framework")
    assert {"django", "rest_framework", "celery", "redis", "arena.models", "ratings.models"} <= set(
        pure["forbidden_modules"]
    )
    # Every app with rules of its own has them in the contract (docs/architecture.md names them "the pure rules").
    assert {m.split(".")[0] for m in pure["source_modules"]} >= {
        "arena",
        "ratings",
        "leaderboards",
        "matchmaking",
        "moderation",
        "seasons",
        "tournaments",
    }


def test_the_map_names_every_room_at_its_height():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    diagram = re.search(r"```\n(.*?)```", text, re.S)
    assert diagram is not None
    lines = diagram.group(1).splitlines()
    heights = [next(i for i, line in enumerate(lines) if line.startswith(layer)) for layer in LAYERS]
    assert heights == sorted(heights), "the diagram lists the layers top to bottom"
    for app in APPS:
        assert re.search(rf"^\s*{app}\b", diagram.group(1), re.M), f"{app} has no line in the diagram"
        assert re.search(rf"^\| `{app}/", text, re.M), f"{app} has no row in 'Where each thing lives'"


def test_each_row_of_where_each_thing_lives_names_files_of_its_own_folder():
    """A row of `arena/api/` that names `auth.py` means arena/api/auth.py, not a file of that name elsewhere."""
    table = ARCHITECTURE.read_text(encoding="utf-8").split("## Where each thing lives", 1)[1].split("\n## ", 1)[0]
    wrong = []
    for row in table.splitlines():
        cells = row.split("|")
        if len(cells) < 4 or not cells[1].strip().startswith("`"):
            continue
        where = re.findall(r"`([\w/.]+)`", cells[1])
        folders = {ROOT / (w if w.endswith("/") else str(Path(w).parent)) for w in where}
        for name in re.findall(r"`(\w+\.py)`", cells[2]):
            if not any(next(folder.rglob(name), None) for folder in folders):
                wrong.append(f"{cells[1].strip()}: {name}")
    assert wrong == []


def _outgrown(path: Path) -> list[tuple[str, int]]:
    """The module (as "<module>") and each function over its limit, with its length in lines."""
    text = path.read_text(encoding="utf-8")
    lines = len(text.splitlines())
    return [("<module>", lines)] * (lines > MODULE_LINES) + [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    ]


@pytest.mark.parametrize("path", held_modules(), ids=_rel)
def test_no_module_or_function_outgrows_its_limit(path):
    assert _outgrown(path) == []


def test_the_limits_hold_the_configuration_the_scripts_and_the_benches():
    held = {_rel(p) for p in held_modules()}
    assert {"config/settings.py", "config/sections/mode.py", "scripts/layers", "load/run.py"} <= held
    assert {"bench/matchmaking_bench.py", "bench/rating_bench.py", "bench/request_profile.py"} <= held
