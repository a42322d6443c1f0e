"""One place knows the mode: only ``infra/mode.py`` reads the settings that tell embedded from scaled out.

A module that tests ``CELERY_TASK_ALWAYS_EAGER``, ``MATCHMAKING_PASS_ON_REQUEST`` or ``REDIS_URL`` itself makes the
next reader look for the other places that decide the same thing; asking ``infra.mode`` keeps the answer in
one file. ``config/`` derives the settings, and ``infra/redis.py`` reads ``REDIS_URL`` only as the address it
connects to (the module docstring of ``infra/mode.py`` says why). The scan reads the source (``ast``), so a
read inside a function, through ``getattr`` or under another name for ``settings`` is caught as well.
"""

from __future__ import annotations

import ast

from tests.pure.house import APPS, ROOT

MODE_SETTINGS = {"CELERY_TASK_ALWAYS_EAGER", "MATCHMAKING_PASS_ON_REQUEST", "REDIS_URL"}
ALLOWED = {"infra/mode.py", "infra/redis.py"}


def _reads(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in MODE_SETTINGS:
            found.append((node.lineno, node.attr))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"getattr", "hasattr"}
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in MODE_SETTINGS
        ):
            found.append((node.lineno, node.args[1].value))
    return found


def _offenders() -> list[str]:
    out = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name in ALLOWED or "/migrations/" in name:
                continue
            out += [f"{name}:{line} reads {setting}" for line, setting in _reads(ast.parse(path.read_text()))]
    return out


def test_only_the_mode_module_reads_the_mode_settings():
    assert _offenders() == []


def test_the_scan_sees_a_read_as_written_in_a_service():
    # The scanner itself must catch the shapes the code used before infra/mode.py (so the test above can fail).
    code = (
        "from django.conf import settings as s\n"
        "def f():\n    return s.CELERY_TASK_ALWAYS_EAGER or getattr(s, 'REDIS_URL')\n"
    )
    assert _reads(ast.parse(code)) == [(3, "CELERY_TASK_ALWAYS_EAGER"), (3, "REDIS_URL")]


def test_the_mode_module_answers_each_question():
    source = (ROOT / "infra/mode.py").read_text()
    assert {setting for _, setting in _reads(ast.parse(source))} == MODE_SETTINGS


def _asks_redis_configured(tree: ast.AST) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            getattr(node.func, "attr", None) == "redis_configured"
            or getattr(node.func, "id", None) == "redis_configured"
        )
    ]


def test_the_board_mode_is_chosen_in_one_module():
    # Whether a board is kept in Redis is leaderboards/board_mode.py's answer (redis_board_titles); the sync, the
    # sweeps, the listener, the command and the reads ask it, not the platform's mode.
    askers = {
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "leaderboards").rglob("*.py"))
        if _asks_redis_configured(ast.parse(path.read_text()))
    }
    assert askers == {"leaderboards/board_mode.py"}
    assert _asks_redis_configured(ast.parse("from infra import mode\nif mode.redis_configured():\n    pass\n")) == [2]


# The environment variables that choose the mode: production or development, embedded or scaled out.
MODE_VARIABLES = {"DEBUG", "DATABASE_URL", "REDIS_URL"}


def _env_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a mode variable is read from the environment: a call given its name first (``env.bool("DEBUG")``,
    ``os.environ.get("REDIS_URL")``) or a subscript (``os.environ["DATABASE_URL"]``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            key = node.args[0]
        elif isinstance(node, ast.Subscript):
            key = node.slice
        else:
            continue
        if isinstance(key, ast.Constant) and key.value in MODE_VARIABLES:
            found.append((node.lineno, key.value))
    return found


def test_the_settings_decide_the_mode_in_one_section():
    """config/settings.py assembles one section per concern (config/sections/); only the mode's section reads the
    variables that choose the mode, and the others take DEBUG and REDIS_URL from it (docs/security.md).
    config/gunicorn.py reads DEBUG too, for the master, which never imports the settings (its docstring says why)."""
    readers = {
        path.relative_to(ROOT).as_posix()
        for path in [ROOT / "config/settings.py", *sorted((ROOT / "config/sections").glob("*.py"))]
        if _env_reads(ast.parse(path.read_text()))
    }
    assert readers == {"config/sections/mode.py"}
    code = 'import os\nDEBUG = env.bool("DEBUG", default=False)\nURL = os.environ["REDIS_URL"]\n'
    assert _env_reads(ast.parse(code)) == [(2, "DEBUG"), (3, "REDIS_URL")]
