"""Game servers in the admin: a superuser issues a key (shown once), the key works on the API, revoking kills it."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from arena.models import GameServer
from arena.servers import KEY_PREFIX_LENGTH, game_server_create

pytestmark = pytest.mark.django_db(transaction=True)

SCREENSHOT = Path("/tmp/arena-admin.png")
KEY_MESSAGE = re.compile(r"API key for (?P<name>.+) \(shown only this once, store it now\): (?P<key>\S+)")


def get_game_1(live_server, key: str) -> httpx.Response:
    """A real HTTP request to the live server with a game-server key; no game exists, so a good key gets 404."""
    with httpx.Client(trust_env=False, timeout=10) as client:
        return client.get(f"{live_server.url}/api/v1/games/1/", headers={"Authorization": f"Api-Key {key}"})


def error_code(response: httpx.Response) -> str:
    return response.json()["error"]["code"]


def test_superuser_issues_a_key_that_authenticates_then_revokes_it(page, live_server, superuser, admin_login):
    other = game_server_create(name="other-server")  # not selected when revoking: must keep working
    admin_login(page, live_server, superuser)

    # Add through the form reached from the admin index.
    page.click('#content-main a[href="/admin/arena/gameserver/add/"]')
    page.fill("#id_name", "tables-eu-1")
    page.click('input[name="_save"]')
    expect(page).to_have_url(f"{live_server.url}/admin/arena/gameserver/")
    warning = page.locator("ul.messagelist li.warning")
    expect(warning).to_have_count(1)
    match = KEY_MESSAGE.fullmatch(warning.inner_text().strip())
    assert match, warning.inner_text()
    assert match["name"] == "tables-eu-1"
    key = match["key"]
    server = GameServer.objects.get(name="tables-eu-1")
    assert server.key_prefix == key[:KEY_PREFIX_LENGTH] and server.revoked_at is None
    assert GameServer.objects.count() == 2  # exactly one server added, no stray row from the admin's own save

    # The admin renders with its stylesheets, not as bare HTML.
    header_bg = page.locator("#header").evaluate("e => getComputedStyle(e).backgroundColor")
    assert header_bg not in ("", "transparent", "rgba(0, 0, 0, 0)"), header_bg
    page.screenshot(path=str(SCREENSHOT), full_page=True)

    # Shown once: neither the changelist (reloaded) nor the server's page shows the key again.
    page.reload()
    expect(page.locator("ul.messagelist")).to_have_count(0)
    assert key not in page.content()
    page.goto(f"/admin/arena/gameserver/{server.pk}/change/")
    expect(page.locator(".field-key_prefix")).to_contain_text(server.key_prefix)
    assert key not in page.content()

    # The key authenticates: the request gets past auth to "no such game" (not 401).
    response = get_game_1(live_server, key)
    assert response.status_code == 404 and error_code(response) == "game_not_found", response.text

    # Revoke it with the changelist action: tick the row, choose the action, Go.
    page.goto("/admin/arena/gameserver/")
    page.check(f'#result_list input.action-select[value="{server.pk}"]')
    page.select_option('select[name="action"]', label="Revoke the API keys of the selected game servers")
    page.click('button[name="index"]')
    expect(page.locator("ul.messagelist li.success")).to_have_text("Revoked 1 key(s).")
    server.refresh_from_db()
    assert server.revoked_at is not None

    # The same request is now refused; the unselected server's key still works.
    response = get_game_1(live_server, key)
    assert response.status_code == 401 and error_code(response) == "invalid_api_key", response.text
    response = get_game_1(live_server, other.key)
    assert response.status_code == 404 and error_code(response) == "game_not_found", response.text
