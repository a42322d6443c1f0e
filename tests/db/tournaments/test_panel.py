"""The Tournament page of the panel (docs/tournaments.md#cancelling): a moderator reads a running tournament and
cancels it with a reason; who and why stay on the tournament, and the game server sees it cancelled."""

from __future__ import annotations

from django.test import Client

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
