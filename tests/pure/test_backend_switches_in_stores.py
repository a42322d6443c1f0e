"""Backend switches live only in storage modules (issue 23 §1), in every app and the platform: a service or a
detection step says what to write; whether PostgreSQL gets its own statement is its app's store's business
(docs/architecture.md).

The scan reads the source (``ast``) for ``.vendor`` (``connection.vendor``, ``connections[alias].vendor``).
"""

from __future__ import annotations

import ast

from tests.pure.house import APPS, ROOT


def _asks_vendor(source: str) -> bool:
    return any(isinstance(node, ast.Attribute) and node.attr == "vendor" for node in ast.walk(ast.parse(source)))


# The platform's two storage modules (docs/architecture.md, "The storage seams"): the hot statements' cursor, and the
# migration operations that build an index online on PostgreSQL and plainly elsewhere.
PLATFORM_STORES = {"infra/db.py", "infra/migration_ops.py"}


def _is_store(name: str) -> bool:
    if name in PLATFORM_STORES:
        return True
    parts = name.split("/")
    return parts[-1] == "store.py" or any(part.endswith("store") for part in parts[:-1])


def test_only_stores_ask_the_database_vendor():
    askers = [
        path.relative_to(ROOT).as_posix()
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if "/migrations/" not in path.as_posix() and _asks_vendor(path.read_text())
    ]
    assert askers, "the scan found no store at all: it is not looking where the code is"
    assert [name for name in askers if not _is_store(name)] == []


def test_the_scan_sees_a_switch():
    assert _asks_vendor("from django.db import connection\nif connection.vendor == 'postgresql':\n    pass\n")
    assert not _is_store("moderation/detection/links.py")
    assert not _is_store("infra/replica.py")
    assert _is_store("arena/recording_store/__init__.py")
