"""The panel's layout, measured in Chromium at 1,400 and 1,000 px (issue 27 §4 and §5; docs/moderation.md, "Pages
that fit"): no page scrolls sideways (``document.scrollWidth <= innerWidth``, and no list's own scroller is wider
than its box), the action buttons' boxes never intersect the page's heading, and the sidebar starts collapsed on a
narrow screen. A ring with a flag, a report, a ban with its related report closed, and a void give every page
something to show. Screenshots in var/artifacts/.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from arena.models import Game, Player
from moderation import services
from moderation.models import Flag, Report
from tests.browser.moderation.conftest import login
from tests.browser.moderation.measure import DOUBLED_ELLIPSIS, OVERFLOW, OVERLAPS
from tests.db.moderation.panel_helpers import Arena, build_ring, fresh_ip, player

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (1400, 1000)


@pytest.fixture
def world(transactional_db, moderator) -> dict[str, str]:
    """A ring flagged by detection (real evidence), a long report, a banned alt with its report closed by the ban,
    a void of the alt's games: every panel page has rows to show."""
    arena = Arena()
    build_ring(
        arena, main="kim_the_long_handle_of_a_player", alts=("kim_alt_number_one", "kim_alt_number_two"), games=6
    )
    arena.game([("olga", fresh_ip()), ("kim_alt_number_one", fresh_ip())])
    report = arena.report(
        reporter="olga",
        accused=["kim_alt_number_one", "kim_the_long_handle_of_a_player"],
        reason="multiple_accounts",
        description="These two are one person. " * 20,
    )
    alt = player("kim_alt_number_two")
    services.player_ban(moderator=moderator, player=alt, note="alt account", duration=None)
    games = list(Game.objects.filter(seats__player=alt, status=Game.Status.RATED))
    entry = services.games_void(moderator=moderator, games=games, note="the alt's games")
    flag = Flag.objects.order_by("pk").first()
    assert flag is not None, "detection raised no flag"
    return {
        "dashboard": "/admin/",
        "flags": "/admin/moderation/flag/",
        "reports": "/admin/moderation/report/",
        "audit": "/admin/moderation/auditentry/",
        "players": "/admin/arena/player/",
        "games": "/admin/arena/game/",
        "flag": f"/admin/moderation/flag/{flag.pk}/change/",
        "report": f"/admin/moderation/report/{report['id']}/change/",
        "player": f"/admin/arena/player/{player('kim_the_long_handle_of_a_player').pk}/change/",
        "banned": f"/admin/arena/player/{alt.pk}/change/",
        "game": f"/admin/arena/game/{games[0].pk}/change/",
        "void": f"/admin/moderation/auditentry/{entry.pk}/change/",
    }


def _measure(page: Page, url: str) -> tuple[dict, dict]:
    page.goto(url)
    return page.evaluate(OVERFLOW), page.evaluate(OVERLAPS)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways_and_no_button_covers_the_heading(
    page, live_server, moderator, world, width, artifacts
):
    login(page, live_server, moderator)
    page.set_viewport_size({"width": width, "height": 900})
    wrong = []
    for name, url in world.items():
        sizes, boxes = _measure(page, url)
        page.screenshot(path=str(artifacts / f"layout_{width}_{name}.png"), full_page=True)
        if sizes["page"] > sizes["inner"]:
            wrong.append(f"{name}: the page is {sizes['page']} px wide in {sizes['inner']}")
        if sizes["scrollers"]:
            wrong.append(f"{name}: scrolls inside {sizes['scrollers']}")
        if boxes["overlaps"]:
            wrong.append(f"{name}: buttons over the heading {boxes['overlaps']}")
        wrong.extend(f"{name}: doubled ellipsis in {t!r}" for t in page.evaluate(DOUBLED_ELLIPSIS))
    assert not wrong, "\n".join(wrong)


def test_the_sidebar_starts_collapsed_on_a_narrow_screen_and_open_on_a_wide_one(browser, live_server, moderator):
    for width, shown in ((1000, False), (1400, True)):
        context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": 900})
        tab = context.new_page()
        login(tab, live_server, moderator)
        tab.goto("/admin/moderation/flag/")
        assert tab.locator("#nav-sidebar").is_visible() is shown, width
        context.close()


def test_the_queue_lists_open_cases_first_and_reports_show_the_accused_and_holder(page, live_server, moderator, world):
    login(page, live_server, moderator)
    report = Report.objects.get()
    services.case_claim(moderator=moderator, obj=report)
    Report.objects.create(server=report.server, reporter=report.reporter, reason=report.reason, status="dismissed")
    page.goto("/admin/moderation/report/")
    assert page.locator("#result_list tbody tr").count() == 1  # the open one only
    assert page.locator("#changelist-filter li.selected a", has_text="Open").count() == 1
    row = page.locator(f"#result_list tr:has(a[href$='/report/{report.pk}/change/'])")
    text = row.inner_text()
    assert "kim_alt_number_one" in text and moderator.get_username() in text
    page.goto("/admin/moderation/flag/")
    assert page.locator("#changelist-filter li.selected a", has_text="Open").count() == 1
    assert Player.objects.filter(status=Player.Status.BANNED).count() == 1
