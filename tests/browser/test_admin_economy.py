"""The panel's Rating economy page (docs/ratings.md, "Where rating points come from"): a moderator reads a title's
ledger and population as two plots and a day table, and moves between titles and periods."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from ratings.models import LedgerDay, PopulationDay

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_moderator_reads_the_economy_of_a_title(page, live_server, moderator, admin_login):
    today = timezone.now().date()
    yesterday = today - timedelta(days=1)
    # Yesterday: a duel and a quit; today: a duel and a reset. By hand: yesterday's net −10, today's −54.87.
    LedgerDay.objects.bulk_create(
        [
            LedgerDay(title="wizard", day=yesterday, source="duel", created=30.0, destroyed=-30.0),
            LedgerDay(title="wizard", day=yesterday, source="quit_penalty", created=0.0, destroyed=-10.0),
            LedgerDay(title="wizard", day=today, source="duel", created=24.87, destroyed=-24.87),
            LedgerDay(title="wizard", day=today, source="reset", created=0.0, destroyed=-54.87),
        ]
    )
    PopulationDay.objects.create(
        title="wizard", day=yesterday, active=2, mean=1495.0, median=1495.0, taken_at=timezone.now() - timedelta(days=1)
    )
    admin_login(page, live_server, moderator)
    page.goto("/admin/")
    page.click("a:text('Rating economy')")
    # The index's link opens the first title's page: wizard.
    expect(page.locator(".economy-page")).to_have_attribute("data-game", "wizard")
    flows = page.locator("svg.economy-plot.flows")
    expect(flows.locator("rect[data-source='quit_penalty']")).to_have_count(1)
    expect(flows.locator("rect[data-source='duel']")).to_have_count(4)  # two days, up and down
    expect(flows.locator("rect[data-source='reset'] title")).to_have_text(f"{today.isoformat()} reset: -54.87")
    # The population plot: yesterday's snapshot and today's live figure (nobody active today: no dot).
    expect(page.locator("svg.economy-plot.population circle.median")).to_have_count(1)
    row = page.locator(f"#economy-days tr[data-day='{yesterday.isoformat()}']")
    expect(row.locator("td.net")).to_have_text("-10.00")
    expect(row).to_contain_text("1495.00")
    expect(page.locator(f"#economy-days tr[data-day='{today.isoformat()}'] td.net")).to_have_text("-54.87")
    page.click(".economy-days a:text('7')")
    expect(page.locator("#economy-days tbody tr")).to_have_count(7)
    page.click(".economy-titles a:text('nile')")
    expect(page.locator(".economy-page")).to_have_attribute("data-game", "nile")
    expect(page.locator("svg.economy-plot.flows .empty")).to_have_text("No rating points moved in this period.")
