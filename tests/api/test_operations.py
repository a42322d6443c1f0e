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
from arena.servers import hash_key

ROOT = Path(__file__).resolve().parents[2]


def _load_settings(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY",
                                                                "IP_HASH_KEY"}}
    clean.update(env, DJANGO_SETTINGS_MODULE="arena.settings")
    code = "import django; django.setup(); from django.conf import settings; print(settings.DATABASES['default']['ENGINE'], settings.CELERY_TASK_ALWAYS_EAGER)"  # noqa: E501
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True)


def test_embedded_default_needs_no_configuration():
    done = _load_settings()
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["django.db.backends.sqlite3", "True"]


def test_services_mode_from_the_environment():
    done = _load_settings(DATABASE_URL="postgres://u@127.0.0.1:5432/x", REDIS_URL="redis://127.0.0.1:6379/3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["django.db.backends.postgresql", "False"]


@pytest.mark.parametrize("missing", ["SECRET_KEY", "IP_HASH_KEY"])
def test_refuses_dev_secrets_without_debug(missing):
    env = {"DEBUG": "false", "SECRET_KEY": "s3cret-prod", "IP_HASH_KEY": "k3y-prod"}
    env.pop(missing)
    done = _load_settings(**env)
    assert done.returncode != 0 and "ImproperlyConfigured" in done.stderr
    assert _load_settings(DEBUG="false", SECRET_KEY="s3cret-prod", IP_HASH_KEY="k3y-prod").returncode == 0


@pytest.mark.django_db
def test_create_game_server_prints_the_key_once_and_stores_its_hash():
    out = StringIO()
    call_command("create_game_server", "wizard-eu", stdout=out)
    key = out.getvalue().strip().splitlines()[-1]
    server = GameServer.objects.get(name="wizard-eu")
    assert server.key_hash == hash_key(key) and key.startswith(server.key_prefix)
    with pytest.raises(CommandError):
        call_command("create_game_server", "wizard-eu", stdout=StringIO())


@pytest.mark.django_db
def test_demo_server_prints_a_working_key_each_run(api):
    first, second = StringIO(), StringIO()
    call_command("demo_server", stdout=first)
    call_command("demo_server", stdout=second)
    old = first.getvalue().split("key: ")[1].split()[0]
    new = second.getvalue().split("key: ")[1].split()[0]
    assert old != new and "curl -s -X POST" in second.getvalue()
    server = GameServer.objects.get(name="demo")
    assert server.key_hash == hash_key(new)
