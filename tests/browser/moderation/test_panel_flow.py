"""A moderator's two journeys through the panel, in Chromium: confirm a ring from the dashboard, void a game.

The games go through the real API on the live server's database; rating, detection and the void's rebuild run
in-process after each commit, as in the embedded deployment.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from arena.models import Player
from moderation import services
from moderation.models import AuditEntry, Flag
from tests.browser.moderation.conftest import login
from tests.db.moderation.panel_helpers import Arena, build_ring, fresh_ip, player

pytestmark = pytest.mark.django_db(transaction=True)


def test_moderator_confirms_the_top_flag_and_sees_ban_reset_and_audit(page, live_server, moderator, artifacts):
    arena = Arena()
    # The bigger ring (two alts, 6 lost games each) scores above the smaller one (one alt, 5 games).
    build_ring(arena, main="kim", alts=("kim_alt", "kim_b"), games=6, ip="203.0.113.7")
    build_ring(arena, main="lee", alts=("lee_alt",), games=5, ip="203.0.113.99")
    # kim also plays honest games with a stranger: kim's plot has more than the ring's games.
    stranger = fresh_ip()
    for _ in range(2):
        arena.game([("kim", "203.0.113.7"), ("olga", stranger)])
    flags = list(Flag.objects.filter(status=Flag.Status.OPEN).order_by("-score"))
    assert [f.beneficiary.handle for f in flags] == ["kim", "lee"]
    top = flags[0]

    login(page, live_server, moderator)
    rows = page.locator("#dashboard-flags tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("kim")
    rows.nth(0).locator("a").click()
    expect(page).to_have_url(re.compile(rf"/admin/moderation/flag/{top.pk}/change/$"))

    # The ring: kim in the middle, both alts around, a games line to each.
    ring = page.locator("svg.ring")
    expect(ring.locator("g.node.beneficiary")).to_have_attribute("data-handle", "kim")
    expect(ring.locator("g.node.feeder")).to_have_count(2)
    expect(ring.locator("g.link.games")).to_have_count(2)
    # One IP link from kim to each alt (labelled), and the alts' own (drawn, unlabelled): all three on one address.
    expect(ring.locator("g.link.ip")).to_have_count(3)
    expect(ring.locator("g.link.ip text")).to_have_count(2)
    expect(ring.locator("g.link.games text").first).to_contain_text("6/6 won (100 %)")
    expect(page.locator("#flag-feeders tr.feeder")).to_have_count(2)
    expect(page.locator(".submit-row input[type=submit]")).to_have_count(0)  # read-only: no Save
    page.screenshot(path=str(artifacts / "flag_page.png"), full_page=True)

    # Confirm: a confirmation page (GET), then the POST.
    page.click("a.action-confirm")
    expect(page).to_have_url(re.compile(rf"/flag/{top.pk}/confirm/$"))
    expect(page.locator(".moderation-warnings")).to_have_count(0)  # a household-sized address: no warning
    page.check(f"input[name=primary][value='{player('kim').pk}']")
    page.fill("textarea[name=note]", "kim_alt and kim_b only ever lose to kim.")
    page.click("input[name=confirm]")
    expect(page).to_have_url(re.compile(rf"/admin/moderation/flag/{top.pk}/change/$"))
    expect(page.locator("ul.messagelist li.success")).to_contain_text("kim_alt, kim_b banned, kim reset to R0")
    expect(page.locator("svg.ring g.node.feeder.banned")).to_have_count(2)

    assert player("kim_alt").status == Player.Status.BANNED and player("kim_b").status == Player.Status.BANNED
    assert player("kim").status == Player.Status.ACTIVE

    # The banned alt's page says so.
    page.goto(f"/admin/arena/player/{player('kim_alt').pk}/change/")
    expect(page.locator(".player-status")).to_contain_text("Banned")

    # kim's page: the reset on the tokaido plot, the rating at R0 with the game count kept, the audit entry.
    page.goto(f"/admin/arena/player/{player('kim').pk}/change/")
    plot = page.locator("figure.plot[data-title=tokaido]")
    expect(plot).to_have_attribute("data-resets", "1")
    expect(plot.locator("svg g.reset")).to_have_count(1)
    expect(plot.locator("svg g.reset text")).to_have_text("reset")
    rating = page.locator("#player-ratings tr[data-title=tokaido]")
    expect(rating.locator("td.elo")).to_have_text("1500.00")
    expect(rating.locator("td").nth(3)).to_have_text("14")  # 12 ring games + 2 with olga, kept by the reset
    audit = page.locator("#player-panel table.audit-rows tbody tr")
    expect(audit).to_have_count(1)
    expect(audit.first.locator(".audit-action")).to_have_text("Confirm Multiple Accounts")
    expect(audit.first).to_contain_text("mod")
    page.screenshot(path=str(artifacts / "player_page.png"), full_page=True)

    # And in the audit log itself.
    page.goto("/admin/moderation/auditentry/")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.locator("#result_list tbody tr").first).to_contain_text("kim_alt")
    entry = AuditEntry.objects.get()
    assert entry.moderator == moderator and entry.action == AuditEntry.Action.CONFIRM_MULTIPLE_ACCOUNTS


def test_moderator_voids_a_game_and_sees_the_refunds(page, live_server, moderator, artifacts):
    """Hand-worked (Tokaido, n = 2 sides ≤ rec = 4, so P = 1; K = 60 for new players):

    game 1: cheat 1500 beats vic 1500: vic −30 → 1470 (cheat +30 → 1530).
    game 2: vic 1470 beats olga 1500: E(1470, 1500) = 1 / (1 + 10^(30/400)) = 0.456934;
            vic +60·0.543066 = +32.584 → 1502.584, olga −32.584 → 1467.416.
    Void game 1 and replay game 2 alone: vic 1500 beats olga 1500: vic 1530, olga 1470.
    Refunds: vic 1530 − 1502.584 = +27.42, olga 1470 − 1467.416 = +2.58, cheat loses its +30 (no games left).
    """
    arena = Arena()
    arena.game([("cheat", fresh_ip()), ("vic", fresh_ip())])
    arena.game([("vic", fresh_ip()), ("olga", fresh_ip())])
    services.player_ban(moderator=None, player=player("cheat"), note="alt of someone")
    voided = player("cheat").seats.get().game

    login(page, live_server, moderator)
    page.goto(f"/admin/arena/game/{voided.pk}/change/")
    seats = page.locator("#game-seats tbody tr")
    expect(seats.filter(has_text="vic").locator("td.delta")).to_have_text("-30.00")
    page.click("a.action-void")
    expect(page).to_have_url(re.compile(rf"/game/{voided.pk}/void/$"))
    expect(page.locator(".consequences")).to_contain_text("banned: cheat")
    page.fill("textarea[name=note]", "played with a banned account")
    page.click("input[name=confirm]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text("is void")
    # The rebuild ran in the (in-process) worker after the commit. The game's page keeps its own rating changes
    # from before the void, and links the void's one refund summary (issue 20 §3).
    page.reload()
    before = page.locator("table.changes-before-void tbody tr")
    expect(before).to_have_count(2)
    expect(before.filter(has_text="vic").locator("td.delta")).to_have_text("-30.00")
    expect(before.filter(has_text="cheat").locator("td.delta")).to_have_text("30.00")
    expect(page.locator("p.void-summary-link")).to_contain_text("tokaido: 2 victims refunded 30.00 in all")
    page.click("a.refund-summary")
    # Victims only (the banned cheat's -30.00 is not a refund), largest first, linked, with the title's total.
    refunds = page.locator("#refund-summary table.refunds tbody tr")
    expect(refunds).to_have_count(2)
    expect(refunds.nth(0)).to_have_attribute("data-player", "vic")
    expect(refunds.nth(0).locator("td.delta")).to_have_text("+27.42")
    expect(refunds.nth(1)).to_have_attribute("data-player", "olga")
    expect(refunds.nth(1).locator("td.delta")).to_have_text("+2.58")
    expect(refunds.nth(0).locator("a")).to_have_attribute("href", f"/admin/arena/player/{player('vic').pk}/change/")
    expect(page.locator("#refund-summary .refund-total")).to_have_text("+30.00")
    # vic's plot marks the voided game; the history kept only game 2.
    page.goto(f"/admin/arena/player/{player('vic').pk}/change/")
    plot = page.locator("figure.plot[data-title=tokaido]")
    expect(plot).to_have_attribute("data-voids", "1")
    expect(plot.locator("svg g.void")).to_have_count(1)
    expect(page.locator("#player-ratings tr[data-title=tokaido] td.elo")).to_have_text("1530.00")
