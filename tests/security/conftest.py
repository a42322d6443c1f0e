"""The security suite (issue 25 §3): every weakness the red-team pass confirmed, tried again as an attacker would.

Each test failed before its fix (docs/security.md, "What was tried, and what holds", names the test of each row).
Tests that need a database run on whichever the suite is given; scripts/test runs them on SQLite and again on
PostgreSQL, where a too-long text or a NUL byte is an error (the bugs of §1.4 were PostgreSQL's).
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

PASSWORD = "correct horse battery staple"
LOGIN = "/admin/login/?next=/admin/"


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings) -> None:
    """The real forms and backends, minus PBKDF2's deliberate cost per hash (dozens of logins here)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def post_login(client: Client, username: str, password: str, *, address: str, token: str = ""):
    return client.post(LOGIN, {"username": username, "password": password, "otp_token": token}, REMOTE_ADDR=address)


def logged_in(response) -> bool:
    return response.status_code == 302 and response["Location"] == "/admin/"


@pytest.fixture
def root() -> Client:
    User.objects.create_superuser("root", "root@example.com", PASSWORD)
    client = Client()
    client.force_login(User.objects.get(username="root"))
    return client
