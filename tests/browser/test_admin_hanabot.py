"""The Hanabot table in the admin: a superuser tunes one Elo in the changelist (list_editable)."""

from __future__ import annotations

import importlib
import re

import pytest
from django.apps import apps
from playwright.sync_api import expect

from ratings.models import HanabotRating

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def hanabot_table(transactional_db) -> None:
    """The rows a data migration seeds, which every live-server (transactional) test's flush wipes out: re-seeded
    with the migration's own code. (serialized_rollback would restore them too, but clashes with the content types
    that the flush of any earlier transactional test re-creates.)"""
    importlib.import_module("ratings.migrations.0002_seed_hanabot").seed(apps, None)


def test_superuser_edits_a_hanabot_elo_in_the_changelist(page, live_server, superuser, admin_login, hanabot_table):
    target = HanabotRating.objects.get(variant_class="50", team_size=3, score=22)
    assert target.elo == 1468.0  # the seeded value from ratings/data/hanabot.csv
    others_before = dict(HanabotRating.objects.exclude(pk=target.pk).values_list("pk", "elo"))
    assert len(others_before) == 111

    admin_login(page, live_server, superuser)
    page.click('#content-main a[href="/admin/ratings/hanabotrating/"]')
    page.click('#changelist-filter details[data-filter-title="variant class"] a:text-is("50")')
    page.click('#changelist-filter details[data-filter-title="team size"] a:text-is("3")')
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(8)  # scores 18..25

    row = rows.filter(has=page.locator("td.field-score", has_text=re.compile(r"^\s*22\s*$")))
    expect(row).to_have_count(1)
    elo = row.locator('input[name$="-elo"]')
    expect(elo).to_have_value("1468.0")
    elo.fill("1475.5")
    page.click('#changelist-form input[name="_save"]')

    expect(page.locator("ul.messagelist li.success")).to_have_text("1 Hanabot rating was changed successfully.")
    expect(row.locator('input[name$="-elo"]')).to_have_value("1475.5")
    target.refresh_from_db()
    assert target.elo == 1475.5
    assert dict(HanabotRating.objects.exclude(pk=target.pk).values_list("pk", "elo")) == others_before
