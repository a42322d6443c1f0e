"""Issue 25 on the production settings: the values the fixes rely on hold without DEBUG, read in a fresh process
exactly as tests/pure/test_production_settings.py reads them (production refuses to start on development keys)."""

from __future__ import annotations

import json

from tests.pure.test_production_settings import PRODUCTION, _run

NAMES = (
    "AXES_LOCKOUT_PARAMETERS",
    "AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT",
    "AXES_CLIENT_IP_CALLABLE",
    "AXES_USERNAME_CALLABLE",
    "DATA_UPLOAD_MAX_MEMORY_SIZE",
    "DATA_UPLOAD_MAX_NUMBER_FIELDS",
    "API_MAX_BATCH_BODY_BYTES",
    "API_MAX_JSON_VALUES",
    "API_MAX_BATCH_JSON_VALUES",
    "API_MAX_JSON_DEPTH",
    "LOGIN_REDIRECT_URL",
    "MIDDLEWARE",
    "SILENCED_SYSTEM_CHECKS",
)


def _production() -> dict:
    code = (
        "import json; from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n, None) for n in {NAMES!r}}}))"
    )
    done = _run(code, **PRODUCTION)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_production_locks_by_username_and_address_and_never_extends_a_lock():
    values = _production()
    assert values["AXES_LOCKOUT_PARAMETERS"] == [["username", "ip_address"], "ip_address"]
    assert values["AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT"] is False
    assert values["AXES_CLIENT_IP_CALLABLE"] == "backoffice.admin_door.client_pseudonym"
    assert values["AXES_USERNAME_CALLABLE"] == "backoffice.admin_door.bounded_username"
    assert "axes.W006" not in (values["SILENCED_SYSTEM_CHECKS"] or [])


def test_production_bounds_bodies_and_keeps_the_guard():
    values = _production()
    assert values["DATA_UPLOAD_MAX_MEMORY_SIZE"] == 256 * 1024
    assert values["DATA_UPLOAD_MAX_NUMBER_FIELDS"] == 1000
    assert values["API_MAX_BATCH_BODY_BYTES"] == 4 * 1024 * 1024
    assert (values["API_MAX_JSON_VALUES"], values["API_MAX_BATCH_JSON_VALUES"]) == (20_000, 250_000)
    assert values["API_MAX_JSON_DEPTH"] == 40
    assert values["LOGIN_REDIRECT_URL"] == "/admin/"
    assert "infra.http_guard.HttpGuardMiddleware" in values["MIDDLEWARE"]


def test_production_check_deploy_is_silent_without_silencing_axes():
    done = _run(
        "import django; django.setup(); from django.core.management import call_command; "
        "call_command('check', '--deploy', '--fail-level', 'WARNING')",
        **PRODUCTION,
    )
    assert done.returncode == 0, done.stderr[-2000:]
