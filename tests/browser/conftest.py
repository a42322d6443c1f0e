"""The browser suite: the admin driven in headless Chromium (Debian's, never a downloaded one) through Playwright.

Every test here runs against pytest-django's ``live_server`` (a real HTTP server on localhost; admin CSS/JS are
served by the staticfiles handler), so the database is transactional: flushed after each test.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import Group, User
from playwright.sync_api import Browser, Page, expect, sync_playwright

from moderation.moderators import GROUP, sync_moderators_group

HERE = Path(__file__).resolve().parent
CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
# Headless as root in a container, with nothing reaching out to Google's services.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "correct horse battery staple"
TIMEOUT_MS = 15_000

AdminLogin = Callable[..., None]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """Chromium for this package's tests only: Playwright's event loop (and the async-unsafe escape hatch below)
    end with the last browser test instead of running on under the rest of the suite."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"the browser tests need Debian's Chromium at {CHROMIUM} (scripts/setup dev installs it); "
            'deselect them with -m "not browser"'
        )
    # Playwright's sync API keeps an asyncio loop running in this thread, so Django's ORM (used by the tests and
    # fixtures around the browser calls) would refuse with SynchronousOnlyOperation. The standard workaround.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings) -> None:
    """Logins still go through the real form and auth backend, minus PBKDF2's deliberate second per hash."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def page(browser: Browser, live_server) -> Iterator[Page]:
    """A fresh browser context (no cookies) per test, with relative URLs resolved against the live server."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    yield context.new_page()
    context.close()


@pytest.fixture
def superuser(transactional_db) -> User:
    return User.objects.create_superuser("root", "root@example.com", PASSWORD)


@pytest.fixture
def moderator(transactional_db) -> User:
    """Staff, not superuser, in the "Moderators" group exactly as its migration makes it (moderation/moderators.py).

    Synced here rather than read: a transactional test's flush empties the group the migration created.
    """
    sync_moderators_group(django_apps)
    group = Group.objects.get(name=GROUP)
    user = User.objects.create_user("mod", "mod@example.com", PASSWORD, is_staff=True)
    user.groups.add(group)
    return user


def totp_code(device, drift: int = 0) -> str:
    """The code an authenticator app shows now for ``device`` (django-otp's own TOTP, from the device's key)."""
    from django_otp.oath import totp

    device.refresh_from_db()
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits, drift=drift):06d}"


def confirm_device(user: User):
    """A confirmed TOTP device for ``user``, as after enrolment: for tests where the admin requires the code
    (``ADMIN_REQUIRE_OTP``, production's default; development leaves it optional)."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    return TOTPDevice.objects.create(user=user, name="authenticator", confirmed=True)


def _admin_login(page: Page, live_server, user: User) -> None:
    """Log ``user`` in through the real admin login form and wait for the admin index; with a code when the user
    has a confirmed authenticator (``confirm_device``)."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    page.goto(f"{live_server.url}/admin/login/?next=/admin/")
    page.fill("#id_username", user.get_username())
    page.fill("#id_password", PASSWORD)
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    if device is not None:
        page.fill("#id_otp_token", totp_code(device))
    page.click("#login-form input[type=submit]")
    expect(page).to_have_url(f"{live_server.url}/admin/")
    expect(page.locator("#user-tools strong")).to_have_text(user.get_username())


@pytest.fixture
def admin_login() -> AdminLogin:
    """``admin_login(page, live_server, user)``: the login helper (users from these fixtures share PASSWORD)."""
    return _admin_login
