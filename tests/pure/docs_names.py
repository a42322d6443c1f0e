"""What a backticked name in docs/*.md must name, and where it is looked up (tests/pure/test_docs_cited.py).

A page names code in backticks; the rule is that every such name that *looks like code of this repository* exists,
so a rename or a deletion that leaves a page behind fails here. Five kinds are checked, each by its shape:

- a **path** (`arena/recording.py`, `ratings/store/`, `bench/pairing_bench.py --sizes 10`): its first word is a file
  or directory of the repository; a path that does not start at the root (`admin/charts.py`, `data/hanabot.csv`,
  `elo.py`) is the tail of one;
- a **dotted name** that starts with a package or module of the repository (`ratings.plan.EloPlan`,
  `handoffs.hand_off`, `mode.redis_configured()`) or with a class defined here (`Game.rating_seq`): it resolves,
  attribute by attribute (a class's attributes include its fields, methods and those of its bases defined here);
- an **identifier** with an underscore or a capital inside (`game_record`, `RATING_BATCH_SIZE`, `GameInput`,
  `no_season`), with or without a call (`wake_once(key, ttl=...)`): the word occurs in some file of the repository
  outside docs/ (code, settings, scripts, templates), so stored names (audit actions, error codes, metric and
  table names) count, and a name that is nowhere any more fails;
- a **command** (`manage.py season_rollover ...`): Django knows it;
- an **endpoint** (`GET /api/v1/games/{id}/`, `/readyz`): the URL map resolves it, and, with a method, the view
  answers that method.

What is not code of this repository is left alone: JSON bodies and field paths (`details.rounds`), formulas,
third-party names (`difflib.get_close_matches`, `AppConfig.ready()`), placeholders (`<app>/listeners.py`).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SKIP_DIRS = {
    ".venv",
    ".git",
    "var",
    "node_modules",
    "__pycache__",
    ".hypothesis",
    ".ruff_cache",
    ".pytest_cache",
    ".mypy_cache",
    "mutants",
    "docs",
}
SELF = {"docs_names.py", "test_docs_cited.py"}  # they name missing things on purpose
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
INLINE = re.compile(r"`([^`\n]+)`")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PATH = re.compile(r"^[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]*)*$")
FILE_SUFFIXES = (".py", ".md", ".toml", ".yml", ".yaml", ".json", ".csv", ".txt", ".html")
DOTTED = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?$")
CALL_OR_NAME = re.compile(r"^([A-Za-z_]\w*)(?:\(.*\))?$")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
ENDPOINT = re.compile(rf"^(?:({'|'.join(METHODS)}) )?(/(?:api|admin|healthz|readyz|metrics)\S*)$")
COMMAND = re.compile(r"^manage\.py (\w+)")


def doc_names() -> list[tuple[str, str]]:
    """Every inline backticked text of docs/*.md outside fenced blocks, with its page."""
    found = []
    for page in sorted(DOCS.glob("*.md")):
        text = FENCE.sub("", page.read_text(encoding="utf-8"))
        found.extend((page.name, name.strip()) for name in INLINE.findall(text))
    return found


def _repo_files() -> Iterator[Path]:
    for directory, subdirs, files in os.walk(ROOT):
        subdirs[:] = [d for d in subdirs if d not in SKIP_DIRS and not d.startswith(".")]
        yield from (Path(directory, name) for name in files)


@cache
def repo_paths() -> frozenset[str]:
    """Every file and directory of the repository (docs/ included), as posix paths from the root; directories end
    with a slash."""
    paths: set[str] = {"docs/"} | {f"docs/{p.name}" for p in DOCS.iterdir()}
    for path in _repo_files():
        rel = path.relative_to(ROOT).as_posix()
        paths.add(rel)
        parts = rel.split("/")
        paths.update("/".join(parts[:i]) + "/" for i in range(1, len(parts)))
    return frozenset(paths)


@cache
def code_words() -> frozenset[str]:
    """Every word of every text file of the repository outside docs/."""
    words: set[str] = set()
    for path in _repo_files():
        if path.name in SELF:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        words.update(WORD.findall(text))
    return frozenset(words)


@cache
def python_modules() -> dict[str, list[str]]:
    """Each module of the repository by its dotted name and by its last part (`handoffs` -> `infra.handoffs`)."""
    modules: dict[str, list[str]] = {}
    for rel in repo_paths():
        if not rel.endswith(".py") or rel.startswith(("tests/", "bench/", "load/", "scripts/")):
            continue
        dotted = rel[:-3].replace("/", ".").removesuffix(".__init__")
        modules.setdefault(dotted, []).append(dotted)
        modules.setdefault(dotted.rsplit(".", 1)[-1], []).append(dotted)
    return modules


@cache
def classes() -> dict[str, list[str]]:
    """Each class defined in the repository's apps by name, with the modules that define one."""
    found: dict[str, list[str]] = {}
    for module in {m for ms in python_modules().values() for m in ms}:
        rel = module.replace(".", "/")
        path = ROOT / (f"{rel}.py" if (ROOT / f"{rel}.py").is_file() else f"{rel}/__init__.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(module)
    return found


def _resolve(module: str, attributes: list[str]) -> bool:
    try:
        target: object = importlib.import_module(module)
    except ImportError:
        return False
    for attribute in attributes:
        if not hasattr(target, attribute):
            return False
        target = getattr(target, attribute)
    return True


def _class_has(module: str, name: str, attribute: str) -> bool:
    """The class has the attribute, or declares it (an annotation without a value, as a Protocol's field)."""
    cls = getattr(importlib.import_module(module), name, None)
    return hasattr(cls, attribute) or any(
        attribute in vars(c).get("__annotations__", {}) for c in getattr(cls, "__mro__", ())
    )


def _outside(name: str) -> bool:
    """A top-level module installed from outside the repository (`gunicorn.error` is its logger, not ours)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None or spec.origin is None:
        return False
    origin = Path(spec.origin).resolve()
    return not origin.is_relative_to(ROOT) or origin.is_relative_to(ROOT / ".venv")


def dotted_exists(dotted: str) -> bool | None:
    """True or False for a dotted name of the repository; None when its first part is not the repository's."""
    parts = dotted.split(".")
    if parts[0] in classes() and parts[0] not in python_modules():
        # Imported, so a model's fields and the attributes of bases from outside the repository count.
        return any(_class_has(module, *parts) for module in classes()[parts[0]]) if len(parts) == 2 else None
    candidates = python_modules().get(parts[0])
    if not candidates or _outside(parts[0]):
        return None
    for base in candidates:
        full = base.split(".") + parts[1:]
        for cut in range(len(full), len(base.split(".")) - 1, -1):
            module = ".".join(full[:cut])
            if module in python_modules() and _resolve(module, full[cut:]):
                return True
    return False


def path_exists(path: str) -> bool | None:
    if "/" not in path and not path.endswith(FILE_SUFFIXES):
        return None
    if path.startswith(("/", ".")) or "<" in path or "*" in path or not PATH.match(path):
        return None
    paths = repo_paths()
    if path in paths or f"{path}/" in paths:
        return True
    top = path.split("/", 1)[0]
    if "/" in path and (f"{top}/" in paths or top in paths):
        return False
    if not path.endswith((*FILE_SUFFIXES, "/")):
        return None  # a media type, a rate (`application/json`, `60/min`)
    return any(p.endswith(f"/{path}") or p.endswith(f"/{path}/") for p in paths)


def endpoint_exists(method: str | None, path: str) -> bool:
    """The URL map resolves the path (a `{placeholder}` tried as a number, then as a word), and the view takes the
    method."""
    from django.urls import Resolver404, resolve

    from infra.api.errors import endpoint_not_found

    path = path.split("?", 1)[0]
    if method is None and path.endswith("/") and any(route.startswith(path) for route in routes()):
        return True  # a prefix of the map (`/api/v1/`)
    for sample in ("1", "wizard"):
        try:
            match = resolve(re.sub(r"\{[^}]*\}", sample, path))
        except Resolver404:
            continue
        if match.func is endpoint_not_found:
            return False  # the API's catch-all (the JSON 404)
        view = getattr(match.func, "cls", None) or getattr(match.func, "view_class", None)
        return method is None or view is None or hasattr(view, method.lower())
    return False


@cache
def routes() -> frozenset[str]:
    """Every route of the URL map as its literal prefix up to the first converter (`/api/v1/games/`)."""
    from django.urls import URLPattern, URLResolver, get_resolver

    found: set[str] = set()

    def walk(patterns: list[URLPattern | URLResolver], prefix: str) -> None:
        for pattern in patterns:
            here = prefix + str(pattern.pattern).lstrip("^").split("<", 1)[0].split("(", 1)[0]
            found.add(here)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, here)

    walk(get_resolver().url_patterns, "/")
    return frozenset(found)


@cache
def metric_names() -> frozenset[str]:
    """Every metric the process exports, with the suffixes Prometheus adds (a counter's `_total`, a histogram's
    `_bucket`, ...): django-prometheus's names are nowhere in our files, yet a page rightly names them."""
    from prometheus_client import REGISTRY

    importlib.import_module("infra.api.metrics").RequestMetrics.get_instance()  # the request metrics, made on use
    suffixes = ("", "_total", "_bucket", "_count", "_sum", "_created")
    return frozenset(family.name + suffix for family in REGISTRY.collect() for suffix in suffixes)


def command_exists(name: str) -> bool:
    from django.core.management import get_commands

    return name in get_commands()


def name_problem(name: str) -> str | None:
    """Why a backticked text names code that does not exist, or None (it exists, or it is not code of ours)."""
    if "..." in name or "<" in name:
        return None
    endpoint = ENDPOINT.match(name)
    if endpoint:
        return None if endpoint_exists(endpoint.group(1), endpoint.group(2)) else "no such endpoint"
    command = COMMAND.match(name)
    if command:
        return None if command_exists(command.group(1)) else "no such command"
    first = name.split(" ", 1)[0]
    found = path_exists(first)
    if found is not None:
        return None if found else "no such path"
    dotted = DOTTED.match(name)
    if dotted:
        found = dotted_exists(dotted.group(1))
        return "does not resolve" if found is False else None
    single = CALL_OR_NAME.match(name)
    if single and re.search(r"_|[a-z][A-Z]", single.group(1)):
        word = single.group(1)
        return None if word in code_words() or word in metric_names() else "named nowhere in the code"
    return None


def problems() -> list[str]:
    return sorted({f"{page}: `{name}` {why}" for page, name in doc_names() if (why := name_problem(name))})
