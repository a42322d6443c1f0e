"""Mistakes the panel refuses, in Chromium (issue 27 §1 and §5; docs/moderation.md, "Mistakes the panel refuses"):
a duplicate offered only among related cases, a ban sent without its length refused, and a case dismissed by
mistake reopened, with its audit entry. Screenshots in var/artifacts/.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from arena.models import Player
from moderation import services
from moderation.models import AuditEntry, Flag, FlagFeeder
from tests.browser.moderation.conftest import login
from tests.db.moderation.panel_helpers import Arena, fresh_ip, player

pytestmark = pytest.mark.django_db(transaction=True)


def _flag(beneficiary: str, feeder: str, title: str) -> Flag:
    flag = Flag.objects.create(beneficiary=player(beneficiary), title=title, score=5.0, evidence={}, game_ids=[])
    FlagFeeder.objects.create(
        flag=flag, feeder=player(feeder), shared_games=5, wins=5, win_share=1.0, concentration=1.0, elo_gained=50.0
    )
    return flag


@pytest.fixture
def rings(transactional_db) -> dict[str, Flag]:
    """kim fed by kim_alt in two titles (one ring), zed fed by zed_alt (another ring)."""
    arena = Arena()
    arena.game([("kim", fresh_ip()), ("kim_alt", fresh_ip())])
    arena.game([("zed", fresh_ip()), ("zed_alt", fresh_ip())])
    return {
        "kim_tokaido": _flag("kim", "kim_alt", "tokaido"),
        "kim_nile": _flag("kim", "kim_alt", "nile"),
        "zed_nile": _flag("zed", "zed_alt", "nile"),
    }


def test_the_duplicate_form_offers_the_related_flag_and_not_the_unrelated_ring(
    page, live_server, moderator, artifacts, rings
):
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/flag/{rings['kim_nile'].pk}/duplicate/")
    options = page.locator("select[name=duplicate_of] option")
    tokaido = rings["kim_tokaido"].pk
    expect(options).to_have_text(["Choose a related case…", f"#{tokaido}: kim in tokaido, score 5.0 (open)"])
    expect(page.locator("select[name=duplicate_of]")).to_have_value("")  # nothing preselected
    page.screenshot(path=str(artifacts / "mistakes_duplicate_choices.png"), full_page=True)


def test_a_ban_without_a_length_is_refused_and_nobody_is_banned(page, live_server, moderator, rings):
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/arena/player/{player('kim').pk}/ban/")
    expect(page.locator("select[name=duration]")).to_have_value("")
    page.fill("textarea[name=note]", "alt account")
    page.click("#moderation-action-form input[type=submit]")
    # The browser itself holds the form back (the field is required and empty); the server refuses the same POST
    # with "Choose how long the ban lasts." (tests/db/moderation/test_admin_pages.py).
    expect(page.locator("select[name=duration]:invalid")).to_have_count(1)
    expect(page).to_have_url(f"{live_server.url}/admin/arena/player/{player('kim').pk}/ban/")
    assert player("kim").status == Player.Status.ACTIVE and not AuditEntry.objects.filter(action="ban").exists()


def test_a_flag_dismissed_by_mistake_is_reopened_and_the_audit_log_says_so(
    page, live_server, moderator, artifacts, rings
):
    flag = rings["kim_nile"]
    services.flag_dismiss(moderator=moderator, flag=flag, note="looked fine")
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/flag/{flag.pk}/change/")
    page.click("a.action-reopen")
    page.fill("textarea[name=note]", "dismissed the wrong flag")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text(f"Flag #{flag.pk} reopened (it was dismissed).")
    page.screenshot(path=str(artifacts / "mistakes_reopened.png"), full_page=True)
    flag.refresh_from_db()
    assert (flag.status, flag.resolved_by, flag.note) == ("open", None, "")
    entry = AuditEntry.objects.get(action="reopen")
    assert entry.details["was"] == "dismissed" and entry.details["closing_note"] == "looked fine"
