"""The Tournament page of the panel (docs/tournaments.md#cancelling): a moderator reads a running tournament and
cancels it with a reason; who and why stay on the tournament and in the audit log, and the game server sees it
cancelled."""

from __future__ import annotations

from django.test import Client

from moderation.models import AuditEntry
from tests.db.moderation.panel_helpers import PASSWORD, make_moderator
from tests.db.tournaments.conftest import TOURNAMENTS, create, register


def test_a_moderator_cancels_a_running_tournament(organiser):
    tid = create(organiser, table_size=3)["id"]
    for handle in ("a", "b", "c"):
        register(organiser, tid, handle)
    assert organiser.post(f"{TOURNAMENTS}{tid}/start/").status_code == 200
    moderator = make_moderator("ann")
    client = Client()
    assert client.login(username=moderator.username, password=PASSWORD)
    page = client.get(f"/admin/tournaments/tournament/{tid}/change/")
    assert page.status_code == 200 and b"Cancel tournament" in page.content
    refused = client.post(f"/admin/tournaments/tournament/{tid}/cancel/", {"note": ""})
    assert refused.status_code == 200  # a reason is required: the confirm page again
    assert organiser.get(f"{TOURNAMENTS}{tid}/").json()["status"] == "running"
    done = client.post(f"/admin/tournaments/tournament/{tid}/cancel/", {"note": "Ring of accounts."})
    assert done.status_code == 302
    shown = organiser.get(f"{TOURNAMENTS}{tid}/").json()
    assert shown["status"] == "cancelled" and shown["cancel_reason"] == "Ring of accounts."
    again = client.get(f"/admin/tournaments/tournament/{tid}/change/")
    assert b"ann" in again.content and b"Ring of accounts." in again.content
    # Audited like the moderators' other actions: one entry, by ann, with the reason and the tournament.
    (entry,) = AuditEntry.objects.filter(action=AuditEntry.Action.CANCEL_TOURNAMENT)
    assert (entry.moderator_name, entry.note) == ("ann", "Ring of accounts.")
    assert entry.details == {"tournament": tid, "name": shown["name"], "game": shown["game"], "round": 1}
    # A second cancel is refused and writes nothing.
    client.post(f"/admin/tournaments/tournament/{tid}/cancel/", {"note": "Again."})
    assert AuditEntry.objects.filter(action=AuditEntry.Action.CANCEL_TOURNAMENT).count() == 1
