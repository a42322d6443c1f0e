"""What an operator relies on: settings from the environment, the key command, the demo command."""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from arena.models import GameServer
from arena.servers import api_key_hash

ROOT = Path(__file__).resolve().parents[3]


def _load_settings(**env: str) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "IP_HASH_KEY", "ALLOWED_HOSTS"}
    }
    clean.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    code = "import django; django.setup(); from django.conf import settings; print(settings.DATABASES['default']['ENGINE'], settings.CELERY_TASK_ALWAYS_EAGER)"  # noqa: E501
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True)


def test_embedded_default_needs_no_configuration():
    done = _load_settings(DEBUG="true")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["config.sqlite", "True"]


def test_services_mode_from_the_environment():
    done = _load_settings(
        DEBUG="true", DATABASE_URL="postgres://u@127.0.0.1:5432/x", REDIS_URL="redis://127.0.0.1:6379/3"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["django.db.backends.postgresql", "False"]


# What production refuses is tested in tests/pure/test_production_settings.py.


@pytest.mark.django_db
def test_create_game_server_prints_the_key_once_and_stores_its_hash():
    out = StringIO()
    call_command("create_game_server", "wizard-eu", stdout=out)
    key = out.getvalue().strip().splitlines()[-1]
    server = GameServer.objects.get(name="wizard-eu")
    assert server.key_hash == api_key_hash(key) and key.startswith(server.key_prefix)
    with pytest.raises(CommandError):
        call_command("create_game_server", "wizard-eu", stdout=StringIO())


@pytest.mark.django_db
def test_demo_server_reuses_its_key_and_says_when_it_had_to_revoke_one(tmp_path):
    key_file = tmp_path / "demo_key"
    first, second = StringIO(), StringIO()
    call_command("demo_server", key_file=str(key_file), stdout=first)
    call_command("demo_server", key_file=str(key_file), stdout=second)
    old = first.getvalue().split("key: ")[1].split()[0]
    again = second.getvalue().split("key: ")[1].split()[0]
    # The second run reuses the saved key: yesterday's curl still works.
    assert old == again and "reused" in second.getvalue() and "curl -s -X POST" in second.getvalue()
    assert key_file.read_text().strip() == old and (key_file.stat().st_mode & 0o777) == 0o600
    server = GameServer.objects.get(name="demo")
    assert server.key_hash == api_key_hash(old)
    # The file lost: a new key, and the command says the old one stopped working.
    key_file.unlink()
    third = StringIO()
    call_command("demo_server", key_file=str(key_file), stdout=third)
    new = third.getvalue().split("key: ")[1].split()[0]
    assert new != old and "previous key was replaced" in third.getvalue()
    server.refresh_from_db()
    assert server.key_hash == api_key_hash(new) and key_file.read_text().strip() == new


@pytest.mark.django_db
def test_demo_server_lists_every_game_slug(tmp_path):
    out = StringIO()
    call_command("demo_server", key_file=str(tmp_path / "demo_key"), stdout=out)
    assert 'Values of "game": wizard, hanabi, tokaido, spades, railroad_ink, nile (docs/games.md).' in out.getvalue()
