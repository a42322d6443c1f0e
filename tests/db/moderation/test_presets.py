"""Message presets for warnings and report closings (issue 27 §4; docs/moderation.md, "Message presets"): the
preset starts the note, the moderator's words follow, and an empty warning is still refused."""

from __future__ import annotations

import pytest
from django.test import Client

from moderation.models import AuditEntry, Report
from tests.db.moderation.panel_helpers import PASSWORD, Arena, fresh_ip, make_moderator, player

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_and_arena() -> tuple[Client, Arena]:
    make_moderator("mod")
    client = Client()
    assert client.login(username="mod", password=PASSWORD)
    arena = Arena()
    arena.game([("kim", fresh_ip()), ("olga", fresh_ip())])
    return client, arena


def test_a_warning_from_a_preset_with_words_added(client_and_arena):
    client, _ = client_and_arena
    url = f"/admin/arena/player/{player('kim').pk}/warn/"
    assert "Please keep the chat civil: insults lead to a ban." in client.get(url).content.decode()
    refused = client.post(url, {"preset": "", "note": "  "})
    assert "Choose a preset or write a note." in refused.content.decode()
    assert client.post(url, {"preset": "1", "note": "Game T-12, move 40."}).status_code == 302
    assert AuditEntry.objects.get(action="warn").note == (
        "Please keep the chat civil: insults lead to a ban. Game T-12, move 40."
    )


def test_a_report_dismissed_with_a_preset_alone(client_and_arena):
    client, arena = client_and_arena
    report = arena.report(reporter="olga", accused=["kim"], reason="other", description="rude")
    response = client.post(f"/admin/moderation/report/{report['id']}/dismiss/", {"preset": "2", "note": ""})
    assert response.status_code == 302
    assert Report.objects.get(pk=report["id"]).note == (
        "Playing from the same address is allowed: there is nothing to act on."
    )


def test_a_page_the_moderator_may_not_see_is_a_403_in_the_admins_look(client_and_arena):
    client, _ = client_and_arena
    response = client.get("/admin/auth/user/")
    body = response.content.decode()
    assert response.status_code == 403
    assert "<h1>Not allowed</h1>" in body and 'id="site-name"' in body and "/static/admin/css/base.css" in body
