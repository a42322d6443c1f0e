"""Production is the default and fails closed (docs/security.md, the production checklist).

Each case starts a fresh interpreter with a clean environment, since settings are read once per process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# 50 characters and many distinct ones: what Django's own check (security.W009) asks of SECRET_KEY.
GOOD_SECRET = "p" + "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"
GOOD_HASH_KEY = "h" * 16 + "0123456789abcdef"  # exactly 32
OURS = (
    "DATABASE_URL",
    "REDIS_URL",
    "DEBUG",
    "SECRET_KEY",
    "IP_HASH_KEY",
    "ALLOWED_HOSTS",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_PROXY_SSL_HEADER",
    "CSRF_TRUSTED_ORIGINS",
    "NUM_PROXIES",
    "ARENA_VAR_DIR",
    "DJANGO_SETTINGS_MODULE",
)


def _run(code: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in OURS}
    clean.update(env, DJANGO_SETTINGS_MODULE="config.settings", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=clean, capture_output=True, text=True, timeout=120)


def _settings(*names: str, **env: str) -> subprocess.CompletedProcess:
    code = "from django.conf import settings; print(" + ", ".join(f"repr(settings.{n})" for n in names) + ")"
    return _run(code, **env)


PRODUCTION = {"SECRET_KEY": GOOD_SECRET, "IP_HASH_KEY": GOOD_HASH_KEY, "ALLOWED_HOSTS": "arena.example.com"}


def test_without_debug_in_the_environment_arena_is_production():
    done = _settings(
        "DEBUG",
        "SECURE_SSL_REDIRECT",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS",
        **PRODUCTION,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True", "True", "31536000"]


def _refusal(done: subprocess.CompletedProcess) -> str:
    assert done.returncode != 0
    return done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("variable", ["SECRET_KEY", "IP_HASH_KEY"])
@pytest.mark.parametrize(
    ("value", "why"),
    [
        (None, "is missing"),
        ("", "is missing"),
        ("x" * 31, "is shorter than 32 characters"),
        ("dev", "is the public development value"),
    ],
)
def test_production_refuses_a_missing_short_or_development_key(variable, value, why):
    env = dict(PRODUCTION)
    if value is None:
        env.pop(variable)
    else:
        env[variable] = {
            "dev": {
                "SECRET_KEY": "dev-only-secret-key-do-not-use-in-production",
                "IP_HASH_KEY": "dev-only-ip-hash-key-do-not-use-in-production",
            }[variable]
        }.get(value, value)
    line = _refusal(_settings("DEBUG", **env))
    assert line == (
        f"django.core.exceptions.ImproperlyConfigured: {variable} {why}; Arena runs as production "
        "without DEBUG=true and will not start."
    )


def test_production_refuses_without_allowed_hosts():
    env = dict(PRODUCTION)
    env.pop("ALLOWED_HOSTS")
    line = _refusal(_settings("DEBUG", **env))
    assert "ImproperlyConfigured: ALLOWED_HOSTS is missing" in line
    assert _refusal(_settings("DEBUG", **env, DEBUG="false")) == line


def test_a_32_character_key_is_enough():
    done = _settings("IP_HASH_KEY", **PRODUCTION)
    assert done.returncode == 0, done.stderr and done.stdout.strip() == repr(GOOD_HASH_KEY)


def test_development_is_chosen_explicitly_and_keeps_its_defaults():
    done = _settings("DEBUG", "SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "SECURE_HSTS_SECONDS", DEBUG="true")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "False", "0"]


def test_check_deploy_is_silent_with_only_the_four_variables():
    env = {"DEBUG": "false", **PRODUCTION}
    clean = {k: v for k, v in os.environ.items() if k not in OURS}
    clean.update(env)
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # None silenced: axes locks by username and address (issue 25), so axes.W006 has nothing to ask.
    assert done.stdout.strip() == "System check identified no issues (0 silenced)."
    # The same with a weak but accepted key shows the check is live: Django wants 50 characters of SECRET_KEY.
    clean["SECRET_KEY"] = "k" * 16 + "0123456789abcdef"
    weak = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert weak.returncode != 0 and "security.W009" in weak.stdout + weak.stderr


def test_the_proxy_and_https_settings_come_from_the_environment():
    done = _settings(
        "SECURE_PROXY_SSL_HEADER",
        "CSRF_TRUSTED_ORIGINS",
        "SECURE_HSTS_SECONDS",
        "SECURE_SSL_REDIRECT",
        "NUM_PROXIES",
        "REST_FRAMEWORK['NUM_PROXIES']",
        **PRODUCTION,
        SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto,https",
        CSRF_TRUSTED_ORIGINS="https://arena.example.com,https://admin.example.com",
        SECURE_HSTS_SECONDS="600",
        SECURE_SSL_REDIRECT="false",
        NUM_PROXIES="2",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "('HTTP_X_FORWARDED_PROTO', 'https') ['https://arena.example.com', 'https://admin.example.com'] 600 False 2 2"
    )


def test_importing_settings_creates_no_directory(tmp_path):
    """The SQLite folder is made when SQLite first connects, not when the settings are read."""
    var = tmp_path / "var"
    done = _run(
        "import django; django.setup(); from django.conf import settings; print(settings.DATABASES)",
        DEBUG="true",
        ARENA_VAR_DIR=str(var),
    )
    assert done.returncode == 0, done.stderr
    assert not var.exists()
    connect = _run(
        "import django; django.setup(); from django.db import connection; connection.ensure_connection()",
        DEBUG="true",
        ARENA_VAR_DIR=str(var),
    )
    assert connect.returncode == 0, connect.stderr
    assert var.is_dir()
