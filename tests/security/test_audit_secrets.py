"""Issue 25 §1.8: a key rotation or a callback edit is audited as "changed", never with a key's prefix or a URL,
and moderators do not see a superuser's edit details at all."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from arena.models import GameServer
from arena.servers import game_server_create
from moderation.models import AuditEntry
from tests.db.moderation.panel_helpers import make_moderator

pytestmark = pytest.mark.django_db


def test_a_rotation_records_no_part_of_the_new_key(root):
    server = game_server_create(name="tables").server
    old_prefix = server.key_prefix
    assert root.post(
        "/admin/arena/gameserver/", {"action": "rotate_keys", "_selected_action": [server.pk]}
    ).status_code in (200, 302)
    new_prefix = GameServer.objects.get(pk=server.pk).key_prefix
    assert new_prefix != old_prefix
    details = json.dumps([e.details for e in AuditEntry.objects.filter(action="admin_edit")])
    assert "key_prefix" in details and new_prefix not in details and old_prefix not in details


def test_moderators_see_that_an_edit_happened_but_not_its_details(root):
    server = game_server_create(name="tables").server
    root.post("/admin/arena/gameserver/", {"action": "revoke_keys", "_selected_action": [server.pk]})
    entry = AuditEntry.objects.get(action="admin_edit")
    moderator = Client()
    moderator.force_login(make_moderator())
    page = moderator.get(f"/admin/moderation/auditentry/{entry.pk}/change/")
    assert page.status_code == 200 and b"revoked_at" not in page.content
    assert b"revoked_at" in root.get(f"/admin/moderation/auditentry/{entry.pk}/change/").content
