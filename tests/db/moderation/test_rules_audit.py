"""Every superuser edit of a table rating or detection reads is audited, before and after (issue 20 §6)."""

from __future__ import annotations

import json
import socket

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.models import GameServer
from arena.servers import game_server_create
from backoffice.admin import RULE_TABLES
from backoffice.admin.rules_audit import HIDDEN, RulesAudit, changes
from matchmaking.models import ServerCallback
from moderation.models import AuditEntry
from ratings.models import HanabotRating

pytestmark = pytest.mark.django_db


@pytest.fixture
def root() -> Client:
    User.objects.create_superuser("root", "root@example.com", "pw-for-tests-only")
    client = Client()
    assert client.login(username="root", password="pw-for-tests-only")
    return client


def edits() -> list[dict]:
    entries = AuditEntry.objects.filter(action="admin_edit").order_by("pk")
    return [e.details | {"who": e.moderator_name} for e in entries]


def test_every_rule_table_admin_is_wrapped():
    from django.contrib import admin

    for model in RULE_TABLES:
        assert isinstance(admin.site._registry[model], RulesAudit), model


def test_a_hanabot_edit_is_audited_with_before_and_after(root):
    row = HanabotRating.objects.get(variant_class="50", team_size=3, score=22)
    assert row.elo == 1468.0
    response = root.post(f"/admin/ratings/hanabotrating/{row.pk}/change/", {"elo": "1475.5"})
    assert response.status_code == 302
    (entry,) = edits()
    assert entry == {
        "model": "ratings.hanabotrating",
        "object": row.pk,
        "object_repr": "Hanabot 50/3p/22: 1475.5",
        "operation": "change",
        "changes": {"elo": {"before": 1468.0, "after": 1475.5}},
        "who": "root",
    }
    # Saving it unchanged writes nothing more.
    root.post(f"/admin/ratings/hanabotrating/{row.pk}/change/", {"elo": "1475.5"})
    assert len(edits()) == 1


@pytest.fixture
def public_dns(monkeypatch) -> None:
    """Saving a callback resolves its host (docs/security.md#pushes-to-game-servers): tables.example.com is faked
    to a public address (nothing connects to it; a save only resolves), every other name refused."""

    def getaddrinfo(host, port, *args, **kwargs):
        if host != "tables.example.com":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("93.184.215.14", port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_a_callback_is_audited_without_its_secret(root, public_dns):
    server = game_server_create(name="tables").server
    response = root.post(
        "/admin/matchmaking/servercallback/add/",
        {"server": server.pk, "url": "https://tables.example.com/push", "enabled": "on"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    secret = ServerCallback.objects.get().secret
    root.post(
        f"/admin/matchmaking/servercallback/{server.pk}/change/",
        {"server": server.pk, "url": "https://tables.example.com/v2", "enabled": ""},
    )
    added, changed = edits()
    assert added["operation"] == "add" and added["changes"]["secret"] == {"before": HIDDEN, "after": HIDDEN}
    # Issue 25 §1.8: where a server's tables go is recorded as changed, never as the URL.
    assert added["changes"]["url"] == {"before": HIDDEN, "after": HIDDEN}
    # The rotation's fields (previous_secret and its expiry) are secret-named too: recorded only as changed.
    assert all(v == {"before": HIDDEN, "after": HIDDEN} for k, v in added["changes"].items() if "secret" in k)
    assert changed["changes"] == {
        "url": {"before": HIDDEN, "after": HIDDEN},
        "enabled": {"before": True, "after": False},
    }
    root.post(f"/admin/matchmaking/servercallback/{server.pk}/delete/", {"post": "yes"})
    deleted = edits()[-1]
    assert deleted["operation"] == "delete" and deleted["changes"]["url"]["after"] == HIDDEN
    assert secret not in json.dumps(edits()) and "tables.example.com" not in json.dumps(edits())


def test_an_admin_action_on_game_servers_is_audited_per_row(root):
    one, two = game_server_create(name="one").server, game_server_create(name="two").server
    response = root.post("/admin/arena/gameserver/", {"action": "revoke_keys", "_selected_action": [one.pk, two.pk]})
    assert response.status_code == 302
    revoked = edits()
    assert sorted(e["object"] for e in revoked) == [one.pk, two.pk]
    for entry in revoked:
        assert entry["changes"]["revoked_at"]["before"] is None and entry["changes"]["revoked_at"]["after"]
        assert "key_hash" not in entry["changes"] or entry["changes"]["key_hash"]["after"] == HIDDEN
    assert GameServer.objects.filter(revoked_at__isnull=True).count() == 0


def test_changes_hide_secret_fields_and_keep_new_ones():
    """A field the model gains later (a server's scopes) is compared like any other, with no change here."""
    diff = changes(
        {"name": "a", "key_hash": "x", "scopes": ["games"]},
        {"name": "a", "key_hash": "y", "scopes": ["games", "reports"]},
    )
    assert diff == {
        "key_hash": {"before": HIDDEN, "after": HIDDEN},
        "scopes": {"before": ["games"], "after": ["games", "reports"]},
    }
