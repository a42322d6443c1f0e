"""Player-supplied text is hostile: a report's description reaches moderators' browsers and must stay text."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from moderation import services
from moderation.models import Report
from tests.browser.moderation.conftest import login
from tests.db.moderation.panel_helpers import Arena, fresh_ip, player

pytestmark = pytest.mark.django_db(transaction=True)

HOSTILE = (
    '<script>window.__pwned = "script"; alert("script")</script>'
    "<img src=x onerror=\"window.__pwned = 'img'; alert('img')\">"
)


def test_a_hostile_report_description_runs_nothing_anywhere_it_is_shown(page, live_server, moderator, artifacts):
    arena = Arena()
    game = arena.game([("bob", fresh_ip()), ("alice", fresh_ip()), ("carl", fresh_ip())])
    arena.report(
        reporter="bob", accused=["alice"], reason="kingmaking", game_id=game["id"], move=57, description=HOSTILE
    )
    report = Report.objects.get()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

    login(page, live_server, moderator)
    expect(page.locator("#dashboard-reports tbody tr")).to_have_count(1)
    page.click(f'#dashboard-reports a[href="/admin/moderation/report/{report.pk}/change/"]')
    description = page.locator("#report-description")
    expect(description).to_have_text(HOSTILE)  # shown as the text it is
    expect(page.locator("#report-game")).to_be_visible()  # the cited game
    expect(page.locator("#report-panel script")).to_have_count(0)
    expect(page.locator("#report-panel img")).to_have_count(0)

    # The same text as a moderator's note, on the pages that show notes.
    page.click("a.action-dismiss")
    page.fill("textarea[name=note]", HOSTILE)
    page.click("input[name=confirm]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text("dismissed")
    for path in (
        "/admin/",
        f"/admin/arena/player/{player('alice').pk}/change/",
        f"/admin/moderation/report/{report.pk}/change/",
        "/admin/moderation/auditentry/",
    ):
        page.goto(path)
        page.wait_for_load_state("load")
        expect(page.locator("#content")).to_contain_text('window.__pwned = "script"')
    # A ban note, on the player page next to the rating plot (the SVGs escape their own text: test_admin_charts).
    services.player_ban(moderator=None, player=player("carl"), note=HOSTILE)
    page.goto(f"/admin/arena/player/{player('carl').pk}/change/")
    page.wait_for_load_state("load")
    expect(page.locator("#player-panel table.audit-rows")).to_contain_text('window.__pwned = "script"')
    expect(page.locator("figure.plot svg")).to_have_count(1)
    assert page.evaluate("() => window.__pwned") is None
    assert dialogs == []
    page.screenshot(path=str(artifacts / "hostile_report.png"), full_page=True)
