"""A superuser sees and edits a game server's scopes in the admin; revoking there cancels its waiting tickets
(docs/security.md#game-server-keys-and-scopes)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from arena.models import GameServer
from arena.servers import game_server_create
from matchmaking.models import Ticket

pytestmark = pytest.mark.django_db(transaction=True)


def _api(live_server, key: str) -> httpx.Client:
    return httpx.Client(
        base_url=live_server.url, trust_env=False, timeout=30, headers={"Authorization": f"Api-Key {key}"}
    )


def test_scopes_are_edited_on_the_servers_page_and_hold_from_the_next_request(
    page, live_server, superuser, admin_login
):
    issued = game_server_create(name="tables-eu-1")
    with _api(live_server, issued.key) as client:
        waiting = client.post(
            "/api/v1/matchmaking/tickets/", json={"player": "alice", "ip": "203.0.113.7", "game": "nile"}
        )
        assert waiting.status_code == 201, waiting.text
        refused = client.get("/api/v1/players/alice/preferences/")
        assert refused.status_code == 403 and refused.json()["error"]["fields"] == {"scope": "preferences"}

        admin_login(page, live_server, superuser)
        page.goto("/admin/arena/gameserver/")
        expect(page.locator("#result_list")).to_contain_text("games matchmaking reports")
        page.click("#result_list a:text('tables-eu-1')")
        expect(page.locator('input[name="scopes"][value="matchmaking"]')).to_be_checked()
        expect(page.locator('input[name="scopes"][value="preferences"]')).not_to_be_checked()
        page.uncheck('input[name="scopes"][value="matchmaking"]')
        page.check('input[name="scopes"][value="preferences"]')
        page.click('input[name="_save"]')
        expect(page.locator("ul.messagelist li.success")).to_have_count(1)
        assert GameServer.objects.get(pk=issued.server.pk).scopes == "games reports preferences"

        assert client.get("/api/v1/players/alice/preferences/").status_code == 200
        ticket = client.get(f"/api/v1/matchmaking/tickets/{waiting.json()['id']}/")
        assert ticket.status_code == 403 and ticket.json()["error"]["code"] == "missing_scope"

        # Revoked from the list's action: the key is dead and its waiting ticket cancelled with the reason.
        page.goto("/admin/arena/gameserver/")
        page.check(f'#result_list input.action-select[value="{issued.server.pk}"]')
        page.select_option('select[name="action"]', label="Revoke the API keys of the selected game servers")
        page.click('button[name="index"]')
        expect(page.locator("ul.messagelist li.success")).to_have_text("Revoked 1 key(s).")
        assert client.get("/api/v1/players/alice/preferences/").status_code == 401
    stored = Ticket.objects.get(pk=waiting.json()["id"])
    assert (stored.status, stored.cancel_reason) == ("cancelled", "server_revoked")
    page.goto(f"/admin/matchmaking/ticket/{stored.pk}/change/")
    expect(page.locator(".field-cancel_reason")).to_contain_text("Server Revoked")
