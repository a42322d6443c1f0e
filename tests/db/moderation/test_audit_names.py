"""The audit log keeps the moderator's username as it was at the time of the action (issue 14 §2)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from moderation.models import AuditEntry
from moderation.services import player_ban
from tests.db.moderation.panel_helpers import PASSWORD, Arena, fresh_ip, make_moderator, player

pytestmark = pytest.mark.django_db


def test_renaming_a_moderator_later_does_not_rewrite_history():
    anna = make_moderator("anna")
    Arena().game([("kim", fresh_ip()), ("olga", fresh_ip())])
    entry = player_ban(moderator=anna, player=player("kim"), note="abusive alt")
    anna.username = "bella"
    anna.save()
    entry.refresh_from_db()
    assert (entry.moderator_name, entry.moderator.username) == ("anna", "bella")
    client = Client()
    assert client.login(username="bella", password=PASSWORD)
    for url in ("/admin/moderation/auditentry/", "/admin/", f"/admin/arena/player/{player('kim').pk}/change/"):
        page = client.get(url).content.decode()
        assert "<td>anna</td>" in page or ">anna<" in page, url
    # The audit list's "who" column is the snapshot: the new name appears only as the logged-in user.
    listing = client.get("/admin/moderation/auditentry/").content.decode()
    assert listing.count("bella") == listing.count("<strong>bella</strong>")


def test_an_action_without_a_moderator_keeps_an_empty_name():
    Arena().game([("kim", fresh_ip()), ("olga", fresh_ip())])
    assert player_ban(moderator=None, player=player("kim"), note="by a script").moderator_name == ""


@pytest.mark.django_db(transaction=True)
def test_the_data_migration_fills_old_entries_with_the_name_they_have_now():
    executor = MigrationExecutor(connection)
    before = [("moderation", "0004_detection_rating_cursors")]
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    user = old.get_model("auth", "User").objects.create(username="carl")
    old.get_model("moderation", "AuditEntry").objects.create(moderator_id=user.pk, action="ban", note="old")
    old.get_model("moderation", "AuditEntry").objects.create(moderator_id=None, action="reset", note="script")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())  # forward to the latest, whatever follows ours
    names = dict(AuditEntry.objects.values_list("note", "moderator_name"))
    assert names == {"old": "carl", "script": ""}
