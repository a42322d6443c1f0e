"""The panel in headless Chromium: Debian's, through Playwright, against pytest-django's live server.

The browser, page and password-hasher fixtures are the admin suite's (tests/browser/conftest.py), imported so
both suites drive the same Chromium the same way. Screenshots go to ``var/artifacts/`` (gitignored) for a human
to look at.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from tests.browser.conftest import _fast_password_hasher, browser, page  # noqa: F401  (fixtures)
from tests.db.moderation.panel_helpers import PASSWORD, make_moderator

HERE = Path(__file__).resolve().parent
ARTIFACTS = Path(__file__).resolve().parents[3] / "var" / "artifacts"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def moderator(transactional_db) -> User:
    """A staff user in the migration's "Moderators" group (restored after the previous test's flush)."""
    return make_moderator()


def login(tab: Page, live_server, user: User) -> None:
    """Through the real login form; lands on the dashboard."""
    tab.goto(f"{live_server.url}/admin/login/?next=/admin/")
    tab.fill("#id_username", user.get_username())
    tab.fill("#id_password", PASSWORD)
    tab.click("#login-form input[type=submit]")
    expect(tab).to_have_url(f"{live_server.url}/admin/")
    expect(tab.locator("#moderation-dashboard")).to_be_visible()
