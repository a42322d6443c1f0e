"""A TypeScript client built from the schema (issue 26 §3): openapi-typescript, the generator most TypeScript
integrators use, turns ``/api/schema/`` into types; ``clients/typescript/tour.mts`` calls the API through
openapi-fetch with them; tsc type-checks it (strict; a seat missing a required field must not compile) and node
runs it against a live server: a game recorded and read back, a typed batch, a conflict's typed error.

The packages are pinned in ``clients/typescript/package-lock.json`` and installed by ``scripts/setup dev``
(``npm ci``); without node, or before that install, the test is skipped with the reason.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.request
from pathlib import Path

import pytest

from arena.servers import game_server_create

CLIENT = Path(__file__).resolve().parents[3] / "clients" / "typescript"
MODULES = CLIENT / "node_modules"

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (scripts/setup dev needs npm)"),
    pytest.mark.skipif(
        not (MODULES / "openapi-typescript").is_dir(),
        reason="clients/typescript is not installed: run scripts/setup dev (npm ci)",
    ),
]


def _node(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["node", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", **(env or {})},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.mark.embedded_pass  # a client generated from the schema: the same contract whichever database serves it
def test_openapi_typescript_builds_a_client_that_records_reads_and_batches(live_server, tmp_path):
    with urllib.request.urlopen(f"{live_server.url}/api/schema/?format=json", timeout=60) as response:
        (tmp_path / "schema.json").write_bytes(response.read())
    for name in ("tour.mts", "tsconfig.json"):
        shutil.copy(CLIENT / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(MODULES)
    # --default-non-nullable false: a field with a default (a seat's quit) stays optional in a request body
    # (docs/api.md, "Generated clients").
    _node(
        str(MODULES / "openapi-typescript" / "bin" / "cli.js"),
        "schema.json",
        "--default-non-nullable",
        "false",
        "-o",
        "arena.d.ts",
        cwd=tmp_path,
    )
    _node(str(MODULES / "typescript" / "bin" / "tsc"), "-p", ".", cwd=tmp_path)
    key = game_server_create(name="typescript").key
    out = _node("out/tour.mjs", cwd=tmp_path, env={"ARENA_URL": live_server.url, "ARENA_KEY": key})
    assert json.loads(out.strip().splitlines()[-1]) == {
        "recorded": 201,
        "places": {"alice": 1, "bob": 2},
        "read": "TS-1",
        "batch": [200, 201],
        "conflict": "table_conflict",
    }
