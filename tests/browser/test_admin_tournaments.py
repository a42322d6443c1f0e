"""The tournaments in the panel, in Chromium (issue 29; docs/tournaments.md#cancelling): a moderator finds a
running tournament in the list, reads its page (standings worked by hand below), cancels it with a reason on the
confirmation page, and the tournament keeps who and why (its audit), shown on its page; the game server reads it
cancelled.

Hand-worked (docs/tournaments.md, points by place): one 4-seat table, a 90, b 80, c 70, d 60, so places 1-4 pay
6, 4, 2, 0; Buchholz is the table-mates' points: a 4+2+0 = 6, b 6+2+0 = 8, c 6+4+0 = 10, d 6+4+2 = 12.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.db.tournaments.conftest import TOURNAMENTS, client_for, create, register, tokaido_game
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _embedded(embedded_mode, settings) -> None:
    settings.REDIS_URL = ""


def _played_round(organiser) -> int:
    tid = create(organiser, name="Spring Swiss", rounds=3)["id"]
    for handle in "abcd":
        assert register(organiser, tid, handle).status_code == 201
    (table,) = organiser.post(f"{TOURNAMENTS}{tid}/start/").json()["rounds"][0]["tables"]
    scores = {"a": 90, "b": 80, "c": 70, "d": 60}
    assert organiser.post("/api/v1/games/", tokaido_game(table, scores), format="json").status_code == 201
    return tid


def test_a_moderator_finds_reads_and_cancels_a_tournament(page, live_server, moderator, admin_login):
    organiser = client_for()
    tid = _played_round(organiser)
    create(organiser, name="Autumn Swiss")  # still registering
    admin_login(page, live_server, moderator)

    # The list: both tournaments, the running one alone under its status filter.
    page.goto("/admin/tournaments/tournament/")
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    page.goto("/admin/tournaments/tournament/?status__exact=running")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.nth(0)).to_contain_text("Spring Swiss")
    expect(rows.nth(0)).to_contain_text("tokaido")
    rows.nth(0).locator("a").first.click()
    expect(page).to_have_url(re.compile(rf"/admin/tournaments/tournament/{tid}/change/(\?.*)?$"))

    # Its page: running in round 2 (round 1's only table came in), standings as worked above, read-only.
    expect(page.locator(".field-status")).to_contain_text("Running")
    expect(page.locator(".field-round")).to_contain_text("2")
    standings = page.locator(".field-standings")
    for line in (
        "1. a: 6 points, Buchholz 6",
        "2. b: 4 points, Buchholz 8",
        "3. c: 2 points, Buchholz 10",
        "4. d: 0 points, Buchholz 12",
    ):
        expect(standings).to_contain_text(line)
    expect(page.locator(".submit-row input[type=submit]")).to_have_count(0)  # read-only: no Save

    # Cancel: the confirmation page says what happens; without a reason nothing is done.
    page.click("a.action-cancel")
    expect(page).to_have_url(re.compile(rf"/tournament/{tid}/cancel/$"))
    expect(page.locator("ul.consequences")).to_contain_text("no further round is paired")
    page.click("input[name=confirm]")  # the reason is required: the browser (or the form) refuses it
    expect(page).to_have_url(re.compile(rf"/tournament/{tid}/cancel/$"))
    assert Tournament.objects.get(pk=tid).status == Tournament.Status.RUNNING
    page.fill("textarea[name=note]", "Two accounts of one player at the same tables.")
    page.click("input[name=confirm]")
    expect(page).to_have_url(re.compile(rf"/admin/tournaments/tournament/{tid}/change/$"))
    expect(page.locator("ul.messagelist li.success")).to_contain_text(f"Tournament #{tid} cancelled.")

    # The audit: who and why, kept on the tournament and shown on its page; no second cancel offered.
    expect(page.locator(".field-status")).to_contain_text("Cancelled")
    expect(page.locator(".field-cancelled_by")).to_contain_text("mod")
    expect(page.locator(".field-cancel_reason")).to_contain_text("Two accounts of one player at the same tables.")
    cancelled = Tournament.objects.get(pk=tid)
    assert (cancelled.cancelled_by, cancelled.cancel_reason) == (
        "mod",
        "Two accounts of one player at the same tables.",
    )
    assert cancelled.round == 2 and cancelled.finished_at is not None  # stopped where it was
    shown = organiser.get(f"{TOURNAMENTS}{tid}/").json()
    assert shown["status"] == "cancelled" and shown["cancel_reason"] == cancelled.cancel_reason
    page.goto(f"/admin/tournaments/tournament/{tid}/cancel/")
    expect(page.locator("body")).to_contain_text("already cancelled")
    # And in the audit log, with the moderators' other actions: who, what and why.
    page.goto("/admin/moderation/auditentry/")
    row = page.locator("#result_list tbody tr").filter(has_text="cancel")
    expect(row.first).to_contain_text("mod")
