"""The test suite's settings: Arena's own (config/settings.py), in development mode unless the environment chooses.

Arena is production when DEBUG is not in the environment (docs/security.md), so a bare ``pytest`` would refuse
to start on the development keys. pytest-django imports the settings before any conftest.py is loaded, which is
why the default is set here, in the settings module pyproject.toml names, and in ``os.environ`` so that every
subprocess a test starts (workers, gunicorn, manage.py) inherits the same mode. A run that sets DEBUG itself
(``DEBUG=false pytest ...``) keeps its value.
"""
import os

os.environ.setdefault("DEBUG", "true")

from config.settings import *  # noqa: F403

# Every test client is 127.0.0.1: the suite's many deliberate wrong keys would trip the per-network limit on failed
# authentications for the tests after them. tests/security/test_public_abuse.py turns it on where it is the subject.
API_FAILED_AUTH_RATE = None
