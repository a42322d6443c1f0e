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


def test_no_primary_is_preselected_and_a_confirm_without_one_is_refused(page, live_server, moderator, rings):
    """The confirm page offers kim and kim_alt with neither chosen; the browser holds the form back, and the server,
    sent the form without a choice all the same, refuses it: nobody banned, nobody reset, the flag still open."""
    flag = rings["kim_tokaido"]
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/flag/{flag.pk}/confirm/")
    radios = page.locator("input[name=primary]")
    expect(radios).to_have_count(2)
    expect(page.locator("input[name=primary]:checked")).to_have_count(0)
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("input[name=primary]:invalid")).to_have_count(2)  # held back by the browser
    page.evaluate("document.querySelectorAll('input[name=primary]').forEach(r => r.required = false)")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("#moderation-action-form")).to_contain_text("Choose the account that is kept (the primary).")
    assert not Player.objects.filter(status=Player.Status.BANNED).exists()
    assert not AuditEntry.objects.filter(action="confirm_multiple_accounts").exists()
    flag.refresh_from_db()
    assert flag.status == "open"


def test_a_duplicate_of_an_unrelated_case_is_refused_a_related_one_keeps_its_note_and_is_reopened(
    page, live_server, moderator, artifacts, rings
):
    """A moderator who forces zed's flag into the form (an id typed into the page) gets a refusal and nothing
    closes; the related flag is accepted with the note, and reopening it puts it back as it was, audited."""
    nile, tokaido, zed = rings["kim_nile"], rings["kim_tokaido"], rings["zed_nile"]
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/flag/{nile.pk}/duplicate/")
    page.evaluate(
        """(id) => { const s = document.querySelector('select[name=duplicate_of]');
           s.add(new Option('#' + id, id)); s.value = String(id); }""",
        zed.pk,
    )
    page.fill("textarea[name=note]", "typo")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("#moderation-action-form .errorlist")).to_be_visible()
    nile.refresh_from_db()
    assert nile.status == "open" and nile.duplicate_of is None
    assert not AuditEntry.objects.filter(action="close_duplicate").exists()

    page.goto(f"{live_server.url}/admin/moderation/flag/{nile.pk}/duplicate/")
    page.select_option("select[name=duplicate_of]", str(tokaido.pk))
    page.fill("textarea[name=note]", "same ring, other title")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text(
        f"Flag #{nile.pk} closed as a duplicate of #{tokaido.pk}."
    )
    closing = AuditEntry.objects.get(action="close_duplicate")
    assert closing.note == "same ring, other title" and closing.details["duplicate_of"] == tokaido.pk

    page.click("a.action-reopen")
    page.fill("textarea[name=note]", "not a duplicate after all")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text(f"Flag #{nile.pk} reopened (it was duplicate).")
    page.screenshot(path=str(artifacts / "mistakes_duplicate_reopened.png"), full_page=True)
    nile.refresh_from_db()
    assert (nile.status, nile.duplicate_of, nile.resolved_by) == ("open", None, None)
    reopening = AuditEntry.objects.get(action="reopen")
    assert reopening.details["was"] == "duplicate" and reopening.details["duplicate_of"] == tokaido.pk
    assert reopening.details["closing_note"] == "same ring, other title"
