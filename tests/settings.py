"""The test suite's settings: Arena's own (config/settings.py), in development mode unless the environment chooses.

Arena is production when DEBUG is not in the environment (docs/security.md), so a bare ``pytest`` would refuse
to start on the development keys. pytest-django imports the settings before any conftest.py is loaded, which is
why the default is set here, in the settings module pyproject.toml names, and in ``os.environ`` so that every
subprocess a test starts (workers, gunicorn, manage.py) inherits the same mode. A run that sets DEBUG itself
(``DEBUG=false pytest ...``) keeps its value.
"""

import os
import re

os.environ.setdefault("DEBUG", "true")


def _worker_redis(url: str, worker: str) -> str:
    """Under pytest-xdist, worker ``gwN`` gets the Redis database N after the one given (modulo Redis's 16), so two
    workers never flush or count in each other's keys; pytest-django likewise gives each its own test database."""
    number = re.fullmatch(r"gw(\d+)", worker)
    found = re.fullmatch(r"(redis://[^/]+)(?:/(\d+))?", url)
    if not number or not found:
        return url
    return f"{found[1]}/{(int(found[2] or 0) + int(number[1])) % 16}"


# In os.environ, before the settings read it: the Celery workers and servers a test starts inherit the environment,
# so they use the same Redis database as the test process that started them.
if os.environ.get("REDIS_URL") and os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["REDIS_URL"] = _worker_redis(os.environ["REDIS_URL"], os.environ["PYTEST_XDIST_WORKER"])

from config.settings import *  # noqa: E402, F403 - after the environment above is set

# Every test client is 127.0.0.1: the suite's many deliberate wrong keys would trip the per-network limit on failed
# authentications for the tests after them. tests/security/test_public_abuse.py turns it on where it is the subject.
API_FAILED_AUTH_RATE = None
