"""The admin door in Chromium (docs/security.md): a lockout after failed logins, TOTP enrolment and login, and a
moderator without an authenticator kept out while the code is required (production's default)."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django_otp.plugins.otp_totp.models import TOTPDevice
from playwright.sync_api import Page, expect

from tests.browser.conftest import PASSWORD, confirm_device, totp_code

pytestmark = pytest.mark.django_db(transaction=True)


def _submit(page: Page, live_server, username: str, password: str, code: str = ""):
    page.goto(f"{live_server.url}/admin/login/?next=/admin/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    if code:
        page.fill("#id_otp_token", code)
    with page.expect_response(re.compile(r"/admin/login/")) as answer:
        page.click("#login-form input[type=submit]")
    return answer.value


def test_ten_failed_logins_lock_the_username_even_for_the_right_password(page, live_server, moderator):
    for _ in range(9):
        assert _submit(page, live_server, "mod", "not the password at all").status == 200
        expect(page.locator(".errornote")).to_contain_text("authenticator code for a staff account")
    # The tenth failure is answered with the lockout page, and so is the right password after it.
    assert _submit(page, live_server, "mod", "not the password at all").status == 429
    expect(page.locator("#locked-out")).to_have_text("Login locked")
    locked = _submit(page, live_server, "mod", PASSWORD)
    assert locked.status == 429
    expect(page.locator("#locked-out")).to_have_text("Login locked")
    expect(page.locator("#site-name")).to_have_text("Arena moderation")  # the admin's own look
    page.goto(f"{live_server.url}/admin/")
    expect(page).to_have_url(re.compile(r"/admin/login/"))


def test_enrolment_then_login_with_a_totp_code(page, live_server, settings, monkeypatch):
    settings.ADMIN_REQUIRE_OTP = True
    monkeypatch.setenv("MOD_PASSWORD", PASSWORD)
    out = io.StringIO()
    call_command("create_moderator", "ann", "--password-env", "MOD_PASSWORD", stdout=out)
    uri = out.getvalue().strip().splitlines()[-1]
    device = TOTPDevice.objects.get(user__username="ann")
    assert uri.startswith("otpauth://totp/") and not device.confirmed

    # The password alone is not enough.
    _submit(page, live_server, "ann", PASSWORD)
    # One message for every refusal (issue 25 §1.5): a right password never shows through.
    expect(page.locator(".errornote")).to_contain_text("authenticator code for a staff account")
    # The code the app shows (computed from the device's key, as the app does from the URI) logs in.
    _submit(page, live_server, "ann", PASSWORD, totp_code(device))
    expect(page).to_have_url(f"{live_server.url}/admin/")
    expect(page.locator("#user-tools strong")).to_have_text("ann")
    page.goto(f"{live_server.url}/admin/arena/player/")
    expect(page.locator("#content h1")).to_have_text("Select player to view")
    device.refresh_from_db()
    assert device.confirmed


def test_a_moderator_without_a_device_is_kept_out(page, live_server, settings, moderator):
    settings.ADMIN_REQUIRE_OTP = True
    _submit(page, live_server, "mod", PASSWORD, "123456")
    expect(page.locator(".errornote")).to_contain_text("authenticator code for a staff account")
    for path in ("/admin/", "/admin/arena/player/", "/admin/moderation/flag/", "/admin/moderation/auditentry/"):
        page.goto(f"{live_server.url}{path}")
        expect(page).to_have_url(re.compile(r"/admin/login/\?next="))
        expect(page.locator("#login-form")).to_be_visible()


def test_the_shared_login_helper_gives_the_code_when_required(page, live_server, settings, moderator, admin_login):
    """The other browser tests log in through ``admin_login``: with the code required and a confirmed device."""
    settings.ADMIN_REQUIRE_OTP = True
    confirm_device(moderator)
    admin_login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/flag/")
    expect(page.locator("#content h1")).to_have_text("Select flag to view")
    assert User.objects.get(username="mod").totpdevice_set.get().confirmed
