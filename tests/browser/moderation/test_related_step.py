"""The related-cases step in Chromium (issue 27 §2 and §5; docs/moderation.md, "One step closes a case"): the ring's
confirmation offers its other flag and the reports about it alone, ticked; the moderator unticks one, chooses the
primary and confirms; the ticked cases close with it, the unticked one stays open. Screenshot in var/artifacts/.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from moderation.models import AuditEntry, Flag, FlagFeeder, Report
from tests.browser.moderation.conftest import login
from tests.db.moderation.panel_helpers import Arena, fresh_ip, player

pytestmark = pytest.mark.django_db(transaction=True)


def _flag(title: str) -> Flag:
    flag = Flag.objects.create(beneficiary=player("kim"), title=title, score=5.0, evidence={}, game_ids=[])
    FlagFeeder.objects.create(
        flag=flag, feeder=player("kim_alt"), shared_games=5, wins=5, win_share=1.0, concentration=1.0, elo_gained=50.0
    )
    return flag


def test_confirming_a_ring_closes_the_ticked_related_cases_in_the_same_step(page, live_server, moderator, artifacts):
    arena = Arena()
    arena.game([("kim", fresh_ip()), ("kim_alt", fresh_ip()), ("olga", fresh_ip()), ("zed", fresh_ip())])
    tokaido, nile = _flag("tokaido"), _flag("nile")
    alt = arena.report(reporter="olga", accused=["kim_alt"], reason="other", description="alt")["id"]
    main = arena.report(reporter="olga", accused=["kim"], reason="other", description="main")["id"]
    mixed = arena.report(reporter="olga", accused=["kim_alt", "zed"], reason="other", description="both")["id"]
    login(page, live_server, moderator)
    page.goto(f"/admin/moderation/flag/{tokaido.pk}/confirm/")
    boxes = page.locator("input[name=close_cases]")
    expect(boxes).to_have_count(3)  # nile's flag and the two reports about the ring alone; not the one naming zed
    for value in (f"flag:{nile.pk}", f"report:{alt}", f"report:{main}"):
        expect(page.locator(f"input[name=close_cases][value='{value}']")).to_be_checked()
    page.locator(f"input[name=close_cases][value='report:{main}']").uncheck()
    page.check(f"input[name=primary][value='{player('kim').pk}']")
    page.screenshot(path=str(artifacts / "related_step_confirm.png"), full_page=True)
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text("kim_alt banned, kim reset to R0")
    assert Flag.objects.get(pk=nile.pk).status == "confirmed"
    assert Report.objects.get(pk=alt).status == "upheld"
    assert Report.objects.get(pk=main).status == "open" and Report.objects.get(pk=mixed).status == "open"
    entry = AuditEntry.objects.get(action="confirm_multiple_accounts")
    assert entry.details["closed_with"] == {"flags": [nile.pk], "reports": [alt]}
