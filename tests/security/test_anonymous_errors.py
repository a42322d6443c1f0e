"""Issue 25 §1.4: what an anonymous visitor, a moderator or a superuser could turn into a 500 (on PostgreSQL, where
a too-long varchar or a NUL byte is an error). Each is now a clean 4xx, and axes's table stays bounded."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client

from tests.db.moderation.panel_helpers import make_moderator
from tests.security.conftest import post_login

pytestmark = pytest.mark.django_db


def test_a_300_character_username_is_an_ordinary_refusal_not_a_500():
    client = Client(raise_request_exception=False)
    response = post_login(client, "a" * 300, "guessing....", address="198.51.100.7")
    assert response.status_code == 200  # the login form again, with its one message
    assert [len(name) for name in AccessAttempt.objects.values_list("username", flat=True)] == [150]


def test_long_usernames_from_one_address_stop_at_its_lock():
    client = Client(raise_request_exception=False)
    for index in range(25):
        post_login(client, f"{index:03d}" + "a" * 400, "guessing....", address="198.51.100.8")
    assert AccessAttempt.objects.count() == 10  # the address's lock: failures during it write nothing


@pytest.mark.parametrize(
    "path",
    [
        "/admin/moderation/report/?status__exact=%00",
        "/admin/arena/player/?q=%00",
        "/admin/moderation/auditentry/?action=%00x",
    ],
)
def test_a_nul_byte_in_a_list_filter_is_400(path):
    moderator = make_moderator()
    client = Client(raise_request_exception=False)
    client.force_login(moderator)
    assert client.get(path).status_code == 400


def test_the_qr_page_of_a_missing_device_is_404():
    User.objects.create_superuser("root", "root@example.com", "x" * 20)
    client = Client(raise_request_exception=False)
    client.force_login(User.objects.get(username="root"))
    assert client.get("/admin/otp_totp/totpdevice/987654/qrcode/").status_code == 404
    assert client.get("/admin/otp_totp/totpdevice/987654/config/").status_code == 404
