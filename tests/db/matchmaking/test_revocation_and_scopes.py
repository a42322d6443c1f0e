"""Revoking a key ends what it holds in one transaction; rotation never un-revokes; scopes from the commands and
the admin (docs/security.md#game-server-keys-and-scopes, #rotating-keys-and-callback-secrets)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from arena.models import GameServer, Player
from arena.servers import ServerRevokedError, game_server_key_rotate, game_server_revoke
from matchmaking.models import Delivery, OpenSeat, ServerCallback, Ticket
from matchmaking.selectors import ticket_present
from matchmaking.services import tickets
from moderation.services.penalties import player_ban
from tests.db.matchmaking.conftest import another_server, ticket_body

pytestmark = pytest.mark.django_db(transaction=True)

TICKETS = "/api/v1/matchmaking/tickets/"


def _waiting(api, name, **extra):
    body = api.post(TICKETS, ticket_body(name, game="nile", **extra), format="json").json()
    assert body["status"] == "waiting", body
    return body


def test_revoking_with_the_command_cancels_waiting_tickets_with_the_reason_and_frees_the_players(api, server_key):
    server = server_key[0]
    first, second = _waiting(api, "alice"), _waiting(api, "bob", party=[{"player": "bo_friend", "ip": "203.0.113.9"}])
    out = StringIO()
    call_command("revoke_game_server", server.name, stdout=out)
    assert "revoked" in out.getvalue()
    for body in (first, second):
        ticket = Ticket.objects.select_related("pool", "table").get(pk=body["id"])
        shown = ticket_present(ticket=ticket)  # what the ticket's GET answers
        assert (shown["status"], shown["reason"]) == ("cancelled", "server_revoked")
    assert not OpenSeat.objects.exists()
    assert api.get(f"{TICKETS}{first['id']}/").status_code == 401  # the key is dead
    # The players are free to queue through another server at once.
    other = another_server()
    assert other.post(TICKETS, ticket_body("bo_friend", game="nile"), format="json").status_code == 201
    again = StringIO()
    call_command("revoke_game_server", server.name, stdout=again)
    assert "already" in again.getvalue()


def test_a_revocation_whose_cancellations_fail_is_rolled_back_whole(api, server_key, monkeypatch):
    """One transaction: a key is never revoked with its tickets left waiting (or the other way round)."""
    server = server_key[0]
    body = _waiting(api, "alice")

    def broken(**kwargs):
        raise RuntimeError("the pushes could not be abandoned")

    monkeypatch.setattr(tickets, "deliveries_abandon", broken)
    with pytest.raises(RuntimeError):
        game_server_revoke(server=server)
    assert GameServer.objects.get(pk=server.pk).revoked_at is None
    assert Ticket.objects.get(pk=body["id"]).status == "waiting" and OpenSeat.objects.count() == 1


def test_the_other_reasons_deleted_and_player_banned(api):
    deleted = _waiting(api, "alice")
    assert api.delete(f"{TICKETS}{deleted['id']}/").json()["reason"] == "deleted"
    banned = _waiting(api, "bob")
    moderator = User.objects.create_superuser("root", password="pw")
    player_ban(player=Player.objects.get(handle="bob"), moderator=moderator, note="ring")
    assert api.get(f"{TICKETS}{banned['id']}/").json()["reason"] == "player_banned"
    assert "reason" not in _waiting(api, "carol")


def test_rotating_a_revoked_key_never_un_revokes_it(server_key):
    server = server_key[0]
    fresh = game_server_key_rotate(server=server)  # an active server: fine
    assert GameServer.objects.get(pk=server.pk).key_hash != server_key[1]
    assert game_server_revoke(server=server)
    with pytest.raises(ServerRevokedError):
        game_server_key_rotate(server=server)
    stored = GameServer.objects.get(pk=server.pk)
    assert stored.revoked_at is not None and stored.key_prefix == fresh.key[:8]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {fresh.key}")
    assert client.get("/api/v1/games/1/").status_code == 401


def test_the_admin_rotation_of_a_revoked_key_is_refused_with_a_message(server_key):
    server = server_key[0]
    game_server_revoke(server=server)
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="pw"))
    page = client.post(
        "/admin/arena/gameserver/", {"action": "rotate_keys", "_selected_action": [server.pk]}, follow=True
    )
    assert "never given a new key" in page.content.decode()
    assert GameServer.objects.get(pk=server.pk).revoked_at is not None


def test_create_game_server_defaults_to_three_scopes_and_takes_others():
    call_command("create_game_server", "tables-1", stdout=StringIO())
    call_command("create_game_server", "accounts", "--scope", "preferences", stdout=StringIO())
    assert GameServer.objects.get(name="tables-1").scopes == "games matchmaking reports"
    assert GameServer.objects.get(name="accounts").scopes == "preferences"


def test_the_demo_server_holds_every_scope_and_a_revoked_demo_stays_revoked(tmp_path):
    key_file = tmp_path / "demo_key"
    call_command("demo_server", key_file=str(key_file), stdout=StringIO())
    demo = GameServer.objects.get(name="demo")
    assert demo.scopes == "games matchmaking reports preferences tournaments staff"
    game_server_revoke(server=demo)
    out = StringIO()
    call_command("demo_server", key_file=str(key_file), stdout=out)
    assert GameServer.objects.get(pk=demo.pk).revoked_at is not None  # renamed, still revoked
    assert GameServer.objects.get(pk=demo.pk).name == f"demo-revoked-{demo.pk}"
    new = GameServer.objects.get(name="demo")
    assert new.pk != demo.pk and new.revoked_at is None and new.scopes == demo.scopes


def test_a_superuser_sees_and_edits_scopes_in_the_admin(server_key):
    server = server_key[0]
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="pw"))
    page = client.get(f"/admin/arena/gameserver/{server.pk}/change/").content.decode()
    assert 'value="preferences"' in page and 'name="scopes"' in page
    saved = client.post(f"/admin/arena/gameserver/{server.pk}/change/", {"scopes": ["games", "reports"]})
    assert saved.status_code == 302, saved.content
    assert GameServer.objects.get(pk=server.pk).scopes == "games reports"
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {server_key[1]}")
    refused = api.post(TICKETS, ticket_body("alice"), format="json")
    assert refused.status_code == 403 and refused.json()["error"]["fields"] == {"scope": "matchmaking"}
    added = client.post("/admin/arena/gameserver/add/", {"name": "accounts", "scopes": ["preferences"]})
    assert added.status_code == 302 and GameServer.objects.get(name="accounts").scopes == "preferences"
    lister = client.get("/admin/arena/gameserver/").content.decode()
    assert "games reports" in lister


def test_the_delivery_page_is_read_only_for_superusers_too_and_offers_the_retry(api, server_key):
    ServerCallback.objects.create(server=server_key[0], url="http://127.0.0.1:9/")
    for name in "abcd":
        api.post(TICKETS, ticket_body(name), format="json")
    delivery = Delivery.objects.get()
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="pw"))
    page = client.get(f"/admin/matchmaking/delivery/{delivery.pk}/change/").content.decode()
    assert "<textarea" not in page and 'name="_save"' not in page and 'name="_continue"' not in page
    assert delivery.tickets[0] in page  # shown, as text
    posted = client.post(f"/admin/matchmaking/delivery/{delivery.pk}/change/", {"tickets": "[]"})
    assert posted.status_code == 403
    assert Delivery.objects.get().tickets == delivery.tickets
    assert "retry_now" in client.get("/admin/matchmaking/delivery/").content.decode()


def test_a_callback_secret_is_shown_once_after_the_save_and_is_the_one_saved(server_key):
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="pw"))
    add = client.get("/admin/matchmaking/servercallback/add/").content.decode()
    assert "secret" not in add.lower().split('id="content"')[1].split("</form>")[0].replace("csrfmiddlewaretoken", "")
    saved = client.post(
        "/admin/matchmaking/servercallback/add/",
        {"server": server_key[0].pk, "url": "http://127.0.0.1:9/arena", "enabled": "on"},
        follow=True,
    )
    page = saved.content.decode()
    callback = ServerCallback.objects.get()
    assert f"(shown only this once, store it now): {callback.secret}" in page
    again = client.get(f"/admin/matchmaking/servercallback/{callback.pk}/change/").content.decode()
    assert callback.secret not in again
    assert callback.secret not in client.get("/admin/matchmaking/servercallback/").content.decode()
