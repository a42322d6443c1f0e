"""What the service-backed tests share about real ``celery worker`` processes: their environment and their config.

A worker is started as a subprocess against the very database pytest-django created (``test_<name>``) and the
test Redis, so it sees what the test committed; asking it for its configuration over the broker proves that the
settings reached the process, since a misspelled ``CELERY_*`` setting is silently ignored.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from django.db import connection

from config.celery import app
from tests import migrated

ROOT = Path(__file__).resolve().parents[2]
CELERY = str(Path(sys.executable).with_name("celery"))


def worker_env(**extra: str) -> dict[str, str]:
    """This process's environment pointed at the test database, plus ``extra`` settings for the worker."""
    return {
        **os.environ,
        "DATABASE_URL": migrated.url_of(connection.settings_dict),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONPATH": str(ROOT),
        **extra,
    }


def worker_conf(timeout: float = 30.0) -> dict[str, Any]:
    """The configuration a running worker reports (with defaults); fails the test if none answers in time."""
    conf: dict[str, Any] = {}
    deadline = time.monotonic() + timeout
    while not conf and time.monotonic() < deadline:
        replies = app.control.inspect(timeout=2).conf(with_defaults=True) or {}
        conf = next(iter(replies.values()), {})
    assert conf, "the worker did not answer"
    return conf
