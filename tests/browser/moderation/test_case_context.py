"""Working the queue in Chromium (issue 20 §4-§6), where the Django test client only read the HTML: a flag closed
as a duplicate of #N, a flag naming the other open flags of its accounts, a report showing the links between the
accused and the reporter, the related flags and (kingmaking) its game with the places; the Games list searched by
several ids or a table-id prefix and filtered by "has a banned player"; a Hanabot table edit's audit entry with
its before and after. Screenshots in var/artifacts/.
"""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from playwright.sync_api import expect

from moderation import services
from moderation.models import AuditEntry, Flag, FlagFeeder
from ratings.models import HanabotRating
from tests.browser.moderation.conftest import login
from tests.db.moderation.panel_helpers import Arena, fresh_ip, player, settle

pytestmark = pytest.mark.django_db(transaction=True)


def file_two_flags() -> tuple[Flag, Flag]:
    """One ring seen in two titles: kim fed by kim_alt in Tokaido and in Nile, as detection files it."""
    Arena().game([("kim", fresh_ip()), ("kim_alt", fresh_ip())])
    flags = []
    for title in ("tokaido", "nile"):
        flag = Flag.objects.create(beneficiary=player("kim"), title=title, score=5.0, evidence={}, game_ids=[])
        FlagFeeder.objects.create(
            flag=flag,
            feeder=player("kim_alt"),
            shared_games=5,
            wins=5,
            win_share=1.0,
            concentration=1.0,
            elo_gained=50.0,
        )
        flags.append(flag)
    return flags[0], flags[1]


@pytest.fixture
def two_flags(transactional_db) -> tuple[Flag, Flag]:
    return file_two_flags()


def test_a_flag_names_the_other_open_flags_and_is_closed_as_a_duplicate(
    page, live_server, moderator, artifacts, two_flags
):
    first, second = two_flags
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/flag/{first.pk}/change/")
    related = page.locator("#related-flags li")
    expect(related).to_have_count(1)
    expect(related).to_have_text(f"flag #{second.pk}: kim in nile (score 5.00)")
    page.screenshot(path=str(artifacts / "case_related_flags.png"), full_page=True)
    related.locator("a").click()  # the link leads to the other flag, which names the first
    expect(page).to_have_url(f"{live_server.url}/admin/moderation/flag/{second.pk}/change/")
    expect(page.locator("#related-flags li")).to_have_text(f"flag #{first.pk}: kim in tokaido (score 5.00)")

    page.click("a.action-duplicate")
    page.select_option("select[name=duplicate_of]", str(first.pk))
    page.fill("textarea[name=note]", "same ring, seen in nile")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text(
        f"Flag #{second.pk} closed as a duplicate of #{first.pk}."
    )
    duplicate = page.locator("#case-context p.duplicate-of")
    expect(duplicate).to_have_text(f"Closed as a duplicate of #{first.pk}.")
    page.screenshot(path=str(artifacts / "case_closed_as_duplicate.png"), full_page=True)
    second.refresh_from_db()
    assert (second.status, second.duplicate_of_id) == ("duplicate", first.pk)
    duplicate.locator("a").click()
    expect(page).to_have_url(f"{live_server.url}/admin/moderation/flag/{first.pk}/change/")
    # Closed, the second flag is no longer an open flag of these accounts.
    expect(page.locator("#related-flags")).to_have_count(0)
    expect(page.locator("#case-context p.empty")).to_have_text("None.")


def test_a_flag_closed_as_a_duplicate_of_itself_is_refused_on_the_form(page, live_server, moderator, two_flags):
    _, second = two_flags
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/flag/{second.pk}/duplicate/")
    # The form offers the related cases only, never the flag itself, and preselects none (issue 27 §1).
    expect(page.locator(f"select[name=duplicate_of] option[value='{second.pk}']")).to_have_count(0)
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("select[name=duplicate_of]:invalid")).to_have_count(1)  # required, nothing chosen
    expect(page.locator("ul.messagelist li.success")).to_have_count(0)
    second.refresh_from_db()
    assert second.status == "open" and second.duplicate_of_id is None


def test_a_kingmaking_report_shows_links_related_flags_and_the_game_with_its_places(
    page, live_server, moderator, artifacts
):
    """olga reports kim for kingmaking in a three-player game; kim and olga once shared an address. The report
    shows that link (marked as with the reporter), kim's two open flags, and the game's seats by place."""
    arena = Arena()
    arena.game([("kim", "203.0.113.50"), ("olga", "203.0.113.50")])
    game = arena.game([("zed", fresh_ip()), ("olga", fresh_ip()), ("kim", fresh_ip())])
    settle()
    report = arena.report(
        reporter="olga",
        accused=["kim"],
        reason="kingmaking",
        game_id=game["id"],
        move=4,
        description="threw the game to zed",
    )
    first, second = file_two_flags()
    assert set(Flag.objects.filter(status="open").values_list("pk", flat=True)) == {first.pk, second.pk}
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/report/{report['id']}/change/")
    links = page.locator("#report-links tbody tr")
    expect(links).to_have_count(1)
    expect(links.locator("td").nth(0)).to_have_text("kim – olga")
    expect(links.locator("td").nth(1)).to_have_text("ip")
    expect(links).to_have_class("with-reporter")
    expect(page.locator("#related-flags li")).to_have_text(
        [f"flag #{first.pk}: kim in tokaido (score 5.00)", f"flag #{second.pk}: kim in nile (score 5.00)"]
    )
    seats = page.locator("#report-game-seats tbody tr")
    expect(seats).to_have_count(3)
    # Places by score (60, 50, 40): zed first, olga second, kim third.
    for i, (handle, place) in enumerate((("zed", "1"), ("olga", "2"), ("kim", "3"))):
        expect(seats.nth(i).locator("td").nth(0)).to_have_text(handle)
        expect(seats.nth(i).locator("td").nth(1)).to_have_text(place)
    expect(page.locator("#report-detail")).to_contain_text("move 4")
    page.screenshot(path=str(artifacts / "case_kingmaking_report.png"), full_page=True)
    page.click("#report-game")
    expect(page).to_have_url(f"{live_server.url}/admin/arena/game/{game['id']}/change/")


def _listed_tables(page) -> list[str]:
    cells = page.locator("#result_list tbody td.field-table_id, #result_list tbody th.field-table_id")
    return sorted(cells.all_inner_texts())


def test_the_games_list_searches_several_ids_or_a_prefix_and_filters_banned_players(
    page, live_server, moderator, artifacts
):
    arena = Arena()
    kim_olga = arena.game([("kim", fresh_ip()), ("olga", fresh_ip())])
    kim_pia = arena.game([("kim", fresh_ip()), ("pia", fresh_ip())])
    olga_pia = arena.game([("olga", fresh_ip()), ("pia", fresh_ip())])
    zed_ugo = arena.game([("zed", fresh_ip()), ("ugo", fresh_ip())])
    services.player_ban(moderator=None, player=player("pia"), note="alt")
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/arena/game/")
    search = page.locator("#searchbar")
    # Two table ids and a player id, separated by a comma and spaces.
    search.fill(f"{olga_pia['table_id']}, {zed_ugo['table_id']} kim")
    search.press("Enter")
    expect(page.locator("#result_list tbody tr")).to_have_count(4)
    search = page.locator("#searchbar")
    search.fill(f"{kim_olga['table_id']} {zed_ugo['table_id']}")
    search.press("Enter")
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    assert _listed_tables(page) == sorted([kim_olga["table_id"], zed_ugo["table_id"]])
    page.screenshot(path=str(artifacts / "games_search_several_ids.png"), full_page=True)
    # A prefix: the tables' ids are "P-<n>"; "P-*" is every one, a one-letter prefix matches nothing.
    search = page.locator("#searchbar")
    search.fill("P-*")
    search.press("Enter")
    expect(page.locator("#result_list tbody tr")).to_have_count(4)
    search = page.locator("#searchbar")
    search.fill("P*")
    search.press("Enter")
    expect(page.locator("#result_list tbody tr")).to_have_count(0)
    # The filter: games with a banned player now (pia's two).
    page.goto(f"{live_server.url}/admin/arena/game/")
    page.click('#changelist-filter details[data-filter-title="has a banned player"] a:text-is("Yes")')
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    assert _listed_tables(page) == sorted([kim_pia["table_id"], olga_pia["table_id"]])
    expect(page.locator("#result_list tbody td.field-players").first).to_contain_text("pia (banned)")
    page.screenshot(path=str(artifacts / "games_filter_banned.png"), full_page=True)
    page.click('#changelist-filter details[data-filter-title="has a banned player"] a:text-is("No")')
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    assert _listed_tables(page) == sorted([kim_olga["table_id"], zed_ugo["table_id"]])


@pytest.fixture
def hanabot_table(transactional_db) -> None:
    """The rows a data migration seeds (every live-server test's flush wipes them), re-seeded by its own code."""
    importlib.import_module("ratings.migrations.0002_seed_hanabot").seed(apps, None)


def test_a_hanabot_table_edit_is_in_the_audit_log_with_before_and_after(
    page, live_server, superuser, admin_login, artifacts, hanabot_table
):
    row = HanabotRating.objects.get(variant_class="50", team_size=3, score=22)
    assert row.elo == 1468.0  # the seeded value (ratings/data/hanabot.csv)
    admin_login(page, live_server, superuser)
    page.goto(f"{live_server.url}/admin/ratings/hanabotrating/{row.pk}/change/")
    page.fill("input[name=elo]", "1475.5")
    page.click("input[name=_save]")
    expect(page.locator("ul.messagelist li.success")).to_be_visible()
    entry = AuditEntry.objects.get(action="admin_edit")
    page.goto(f"{live_server.url}/admin/moderation/auditentry/")
    listed = page.locator("#result_list tbody tr")
    expect(listed).to_have_count(1)
    expect(listed).to_contain_text("root")
    page.goto(f"{live_server.url}/admin/moderation/auditentry/{entry.pk}/change/")
    details = page.locator(".field-details .readonly")
    expect(details).to_contain_text("ratings.hanabotrating")
    expect(details).to_contain_text("1468.0")
    expect(details).to_contain_text("1475.5")
    expect(page.locator(".field-moderator_name .readonly")).to_have_text("root")
    page.screenshot(path=str(artifacts / "audit_hanabot_edit.png"), full_page=True)


# Every column header of the changelist: its text's width against its cell's, its right edge against the page's,
# and the results table against its scrolling container (Django wraps it in div.results, which scrolls).
HEADERS = """() => {
  const results = document.querySelector('#changelist .results');
  const table = document.querySelector('#result_list');
  return {
    page: document.documentElement.clientWidth,
    results: [results.scrollWidth, results.clientWidth],
    table: table.getBoundingClientRect().right,
    headers: [...table.querySelectorAll('thead th')].map(th => {
      const r = th.getBoundingClientRect();
      const text = th.querySelector('.text') || th;
      return {text: th.innerText.trim(), scroll: text.scrollWidth, client: text.clientWidth,
              cellScroll: th.scrollWidth, cellClient: th.clientWidth, left: r.left, right: r.right};
    }),
  };
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_games_list_at_1400_px_shows_every_column_header_whole(page, live_server, moderator, artifacts, theme):
    """Four-player tables with long handles (the players column is the widest): at 1,400 px every header, "Finished
    at" included, is whole and on the page, and the table needs no sideways scroll."""
    arena = Arena()
    for n in range(3):
        arena.game([(f"a_rather_long_handle_{n}{i}", fresh_ip()) for i in range(4)])
    page.set_viewport_size({"width": 1400, "height": 900})
    page.emulate_media(color_scheme=theme)
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/arena/game/")
    expect(page.locator("#result_list tbody tr")).to_have_count(3)
    page.screenshot(path=str(artifacts / f"games_list_1400_{theme}.png"), full_page=True)
    layout = page.evaluate(HEADERS)
    texts = [h["text"] for h in layout["headers"] if h["text"]]
    for wanted in ("Table id", "Players", "Finished at"):
        assert any(t.lower() == wanted.lower() for t in texts), (wanted, texts)
    for h in layout["headers"]:
        assert h["scroll"] <= h["client"] and h["cellScroll"] <= h["cellClient"], f"{h['text']!r} is cut: {h}"
        assert h["left"] >= 0 and h["right"] <= layout["page"], f"{h['text']!r} off the page: {layout}"
    scroll, client = layout["results"]
    assert scroll <= client, f"the table scrolls sideways: {layout}"
    assert layout["table"] <= layout["page"], layout
