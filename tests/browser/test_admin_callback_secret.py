"""Issue 19: the callback secret a superuser copies from the admin is the one pushes are signed with.

The Add page used to show a secret that was never saved, so an integrator who copied it failed every signature
check. Now the secret appears once, in the message after the save: copied from there (as a person would, from the
page's text), it verifies a real push received at a local receiver.
"""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import expect

from arena.servers import game_server_create
from matchmaking import push
from matchmaking.models import ServerCallback
from tests.db.matchmaking.receiver import receiver

pytestmark = pytest.mark.django_db(transaction=True)

SECRET_MESSAGE = re.compile(r"Callback secret for (?P<name>.+) \(shown only this once, store it now\): (?P<secret>\S+)")


@pytest.fixture
def embedded_pushes(embedded_mode, settings):
    """The live server runs embedded (a pass on each ticket request, the push in-process); its receiver is on
    127.0.0.1, which only the development allowance permits."""
    settings.PUSH_ALLOW_PRIVATE_NETWORKS = True


def test_the_secret_copied_after_adding_a_callback_verifies_a_real_push(
    page, live_server, superuser, admin_login, embedded_pushes
):
    issued = game_server_create(name="tables-eu-1")
    with receiver() as box:
        admin_login(page, live_server, superuser)
        page.goto("/admin/matchmaking/servercallback/add/")
        # The Add page shows no secret at all: there is none until the row is saved.
        expect(page.locator("#servercallback_form")).not_to_contain_text("secret")
        page.select_option("#id_server", label="tables-eu-1")
        page.fill("#id_url", box.url)
        page.click('input[name="_save"]')
        expect(page).to_have_url(f"{live_server.url}/admin/matchmaking/servercallback/")
        warning = page.locator("ul.messagelist li.warning")
        expect(warning).to_have_count(1)
        match = SECRET_MESSAGE.fullmatch(warning.inner_text().strip())
        assert match and match["name"] == "tables-eu-1", warning.inner_text()
        copied = match["secret"]

        # Shown once: neither the list (reloaded) nor the callback's page shows it again.
        page.reload()
        expect(page.locator("ul.messagelist")).to_have_count(0)
        assert copied not in page.content()
        callback = ServerCallback.objects.get()
        page.goto(f"/admin/matchmaking/servercallback/{callback.pk}/change/")
        expect(page.locator(".field-secrets")).to_contain_text("one secret")
        assert copied not in page.content()

        # Four tickets through the live server's API: a table forms, and it is pushed to the receiver.
        with httpx.Client(
            base_url=live_server.url, trust_env=False, timeout=30, headers={"Authorization": f"Api-Key {issued.key}"}
        ) as client:
            for index, name in enumerate("abcd"):
                response = client.post(
                    "/api/v1/matchmaking/tickets/",
                    json={"player": name, "ip": f"203.0.113.{index + 1}", "game": "tokaido"},
                )
                assert response.status_code == 201, response.text
        (got,) = box.wait_for(1)
    assert push.verify(copied, got.headers["X-Arena-Signature"], got.body)
    assert got.json["data"]["table"]["players"] == ["a", "b", "c", "d"]
