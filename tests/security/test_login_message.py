"""Issue 25 §1.5: the login form never tells a right password from a wrong one. A wrong password, a right password
with a wrong code and a staff account with no authenticator each answer the same page; the reason is logged."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from backoffice.admin_door import totp_enrol
from tests.db.moderation.panel_helpers import make_moderator
from tests.security.conftest import PASSWORD, post_login

pytestmark = pytest.mark.django_db


def _errors(response) -> list[str]:
    return re.findall(r'<p class="errornote">\s*(.*?)\s*</p>', response.content.decode(), re.S)


def test_the_three_refusals_read_the_same(settings):
    settings.ADMIN_REQUIRE_OTP = True
    with_device, without = make_moderator("kim"), make_moderator("lee")
    totp_enrol(with_device)
    TOTPDevice.objects.filter(user=with_device).update(confirmed=True)
    wrong_password = post_login(Client(), "kim", "not the password", token="123456", address="192.0.2.1")
    wrong_code = post_login(Client(), "kim", PASSWORD, token="000000", address="192.0.2.2")
    no_device = post_login(Client(), "lee", PASSWORD, token="123456", address="192.0.2.3")
    answers = [_errors(r) for r in (wrong_password, wrong_code, no_device)]
    assert all(r.status_code == 200 for r in (wrong_password, wrong_code, no_device))
    assert answers[0] and answers[0] == answers[1] == answers[2], answers
    assert without.pk  # (the account exists: only the log says it has no device)
