"""Issue 26 §4: the verification snippets of docs/api.md ("Verifying a push"), Python and JavaScript, copied out
of the docs as a game server would copy them and run in their own processes (no import from Arena) against a
real signed push received on a local port."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.db.matchmaking.receiver import receiver

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "api.md"
CALLBACK = "/api/v1/callback/"


def snippet(language: str) -> str:
    """The first ``language`` code block under "#### Verifying a push"."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("#### Verifying a push") :]
    section = section[: section.index("\n#### ", 1)]
    (code, *_) = re.findall(rf"```{language}\n(.*?)```", section, flags=re.S)
    assert "arena" not in re.sub(r"(?i)arena_?verify", "", code).lower().replace("x-arena", ""), (
        "the snippet must not import from Arena"
    )
    return code


PYTHON_MAIN = """
import json, sys
case = json.load(open(sys.argv[1]))
print(json.dumps([arena_verify(secret, case["header"], open(case["body"], "rb").read())
                  for secret in case["secrets"]]))
"""

JS_MAIN = """
const fs = require("node:fs");
const kase = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
console.log(JSON.stringify(kase.secrets.map((secret) => arenaVerify(secret, kase.header, fs.readFileSync(kase.body)))));
"""


@pytest.fixture
def real_push(api, tmp_path):
    """A real ping pushed to a local receiver: the secret shown once, the header and raw body received."""
    with receiver() as box:
        secret = api.put(CALLBACK, {"url": box.url}, format="json").json()["secret"]
        assert api.post(CALLBACK + "ping/").status_code == 202
        (got,) = box.wait_for(1)
    (tmp_path / "body.bin").write_bytes(got.body)
    (tmp_path / "tampered.bin").write_bytes(got.body.replace(b'"ping"', b'"gnip"'))
    assert got.body != (tmp_path / "tampered.bin").read_bytes()
    return secret, got.headers["X-Arena-Signature"], tmp_path


def _run(command: list[str], source: str, case: dict, tmp_path: Path) -> list[bool]:
    script = tmp_path / ("verify.py" if command[0] == sys.executable else "verify.js")
    script.write_text(source, encoding="utf-8")
    (tmp_path / "case.json").write_text(json.dumps(case), encoding="utf-8")
    done = subprocess.run(
        [*command, str(script), str(tmp_path / "case.json")], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _cases(secret: str, header: str, tmp_path: Path) -> list[tuple[dict, list[bool]]]:
    body, tampered = str(tmp_path / "body.bin"), str(tmp_path / "tampered.bin")
    stale = re.sub(r"t=\d+", "t=1000000000", header)  # 2001: a replay long after its time
    return [
        ({"secrets": [secret, "not-the-secret"], "header": header, "body": body}, [True, False]),
        ({"secrets": [secret], "header": header, "body": tampered}, [False]),
        ({"secrets": [secret], "header": stale, "body": body}, [False]),
        ({"secrets": [secret], "header": "garbage", "body": body}, [False]),
    ]


def test_the_python_snippet_verifies_a_real_push(real_push):
    secret, header, tmp_path = real_push
    for case, expected in _cases(secret, header, tmp_path):
        assert _run([sys.executable], snippet("python") + PYTHON_MAIN, case, tmp_path) == expected, case


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_javascript_snippet_verifies_a_real_push(real_push):
    secret, header, tmp_path = real_push
    for case, expected in _cases(secret, header, tmp_path):
        assert _run(["node"], snippet("js") + JS_MAIN, case, tmp_path) == expected, case
