"""A moderator's shift without friction (issue 20), in Chromium, in the light and the dark theme: a ring on its
own device brings no crowd warning and its picture is drawn legibly (each label inside the SVG, label boxes apart,
text contrasting with what is behind it, read from the drawn elements through getBBox and getComputedStyle);
the confirm page previews the ratings; the flag is claimed, confirmed and its ring voided in one step; a timed
ban shows when it ends; a warning and a note are listed. Screenshots in var/artifacts/.
"""

from __future__ import annotations

import itertools
import re

import pytest
from playwright.sync_api import Page, expect

from arena.models import Game
from moderation.models import AuditEntry, BanTerm, Flag
from tests.browser.moderation.conftest import login
from tests.db.moderation.panel_helpers import Arena, build_ring, fresh_ip, games_of, player

pytestmark = pytest.mark.django_db(transaction=True)

THEMES = ["light", "dark"]

# Every <text> of an SVG: its box in the SVG's user units (getBBox) against the viewBox, its box on screen
# (getBoundingClientRect) for overlaps, its fill, and the colour behind it: the fill of the shape it sits on
# (a node's circle) or the page's background.
DRAWN = """(svg) => {
  const vb = svg.viewBox.baseVal;
  const colour = (c) => {
    const m = (c.match(/[\\d.]+/g) || []).map(Number);
    return m.length < 3 || (m.length > 3 && m[3] === 0) ? null : m.slice(0, 3);
  };
  const pageBg = () => {
    for (let e = svg; e; e = e.parentElement) {
      const c = colour(getComputedStyle(e).backgroundColor);
      if (c) return c;
    }
    return [255, 255, 255];
  };
  return [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {
    const b = t.getBBox(), r = t.getBoundingClientRect();
    const node = t.closest('g.node');
    let bg = pageBg();
    if (node && t.classList.contains('handle')) bg = colour(getComputedStyle(node.querySelector('circle')).fill) || bg;
    return {text: t.textContent, cls: t.getAttribute('class') || '', node: !!node,
            box: [b.x, b.y, b.width, b.height], vb: [vb.x, vb.y, vb.width, vb.height],
            rect: [r.left, r.top, r.right, r.bottom], fill: colour(getComputedStyle(t).fill), bg};
  });
}"""


def luminance(rgb: list[float]) -> float:
    def channel(c: float) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: list[float], b: list[float]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def check_drawing(page: Page, selector: str) -> list[dict]:
    """Each label inside the SVG's box, no two label boxes overlapping, every text at least 3:1 against what is
    behind it (WCAG's floor for graphics and large text)."""
    texts = page.locator(selector).evaluate(DRAWN)
    assert texts, selector
    for t in texts:
        x, y, w, h = t["box"]
        vx, vy, vw, vh = t["vb"]
        assert vx <= x and vy <= y and x + w <= vx + vw and y + h <= vy + vh, f"{t['text']!r} outside the SVG: {t}"
        assert t["fill"] is not None and contrast(t["fill"], t["bg"]) >= 3, f"{t['text']!r} unreadable: {t}"
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            assert not overlap(a["rect"], b["rect"]), f"{a['text']!r} overlaps {b['text']!r}"
    return texts


# Every link's drawn curve as points in user units (sampled along the path the browser drew, getPointAtLength,
# so the test reads the geometry of the <path>/<line> elements, not the code's own numbers), and every link label's
# getBBox.
LINK_GEOMETRY = """(svg) => {
  const lines = [...svg.querySelectorAll('g.link path, g.link line')].map(p => {
    if (p.tagName === 'line') {
      const a = (n) => p[n].baseVal.value;
      return [[a('x1'), a('y1')], [a('x2'), a('y2')]];
    }
    const n = 64, len = p.getTotalLength();
    return [...Array(n + 1).keys()].map(i => { const q = p.getPointAtLength(len * i / n); return [q.x, q.y]; });
  });
  const labels = [...svg.querySelectorAll('g.link text')].filter(t => t.textContent.trim()).map(t => {
    const b = t.getBBox();
    return {text: t.textContent, box: [b.x, b.y, b.x + b.width, b.y + b.height]};
  });
  const vb = svg.viewBox.baseVal, c = svg.getBBox();
  return {lines, labels, viewBox: [vb.x, vb.y, vb.width, vb.height], content: [c.x, c.y, c.width, c.height]};
}"""


def segment_meets_box(p: list[float], q: list[float], box: list[float]) -> bool:
    """Liang-Barsky: does the segment p-q enter the box (left, top, right, bottom)?"""
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for ep, eq in ((-dx, p[0] - box[0]), (dx, box[2] - p[0]), (-dy, p[1] - box[1]), (dy, box[3] - p[1])):
        if ep == 0:
            if eq < 0:
                return False
            continue
        r = eq / ep
        if ep < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 > t1:
            return False
    return True


def check_no_line_through_labels(page: Page, selector: str = "svg.ring") -> dict:
    """No link's line (as drawn) crosses any link label's box."""
    geometry = page.locator(selector).evaluate(LINK_GEOMETRY)
    for label in geometry["labels"]:
        for i, pts in enumerate(geometry["lines"]):
            for a, b in itertools.pairwise(pts):
                assert not segment_meets_box(a, b, label["box"]), f"link {i} strikes through {label['text']!r}"
    return geometry


def themed(page: Page, theme: str) -> None:
    """Django admin's theme follows the system's when left on "auto": emulate the system's preference."""
    page.emulate_media(color_scheme=theme)


@pytest.mark.parametrize("theme", THEMES)
def test_a_ring_on_its_own_device_is_drawn_legibly_and_brings_no_crowd_warning(
    page, live_server, moderator, artifacts, theme
):
    arena = Arena()
    alts = tuple(f"im5_r7alt{i}" for i in range(4))
    build_ring(arena, main="im5_r7main", alts=alts, games=6, ip="203.0.113.77")
    flag = Flag.objects.get(beneficiary__handle="im5_r7main")
    themed(page, theme)
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/flag/{flag.pk}/change/")
    ring = page.locator("svg.ring")
    expect(ring.locator("g.node.feeder")).to_have_count(4)
    expect(ring.locator("g.widely-shared")).to_have_count(0)  # the ring is not its own crowd
    expect(page.locator(".mark.crowded")).to_have_count(0)
    texts = check_drawing(page, "svg.ring")
    geometry = check_no_line_through_labels(page)
    assert len(geometry["labels"]) >= 4  # the games lines' labels at least: the check is not vacuous
    # Each handle inside its own circle, whole (not cut).
    for handle in ("im5_r7main", *alts):
        node = ring.locator(f'g.node[data-handle="{handle}"]')
        inside = node.evaluate("""(g) => { const c = g.querySelector('circle').getBBox();
            const t = g.querySelector('text.handle').getBBox();
            return t.x >= c.x && t.x + t.width <= c.x + c.width && t.y >= c.y && t.y + t.height <= c.y + c.height; }""")
        assert inside, handle
    assert {t["text"] for t in texts if "handle" in t["cls"]} == {"im5_r7main", *alts}
    page.screenshot(path=str(artifacts / f"shift_ring_{theme}.png"), full_page=True)
    page.click("a.action-confirm")
    expect(page.locator(".moderation-warnings")).to_have_count(0)
    expect(page.locator("#rating-preview")).to_be_visible()
    page.screenshot(path=str(artifacts / f"shift_confirm_{theme}.png"), full_page=True)


@pytest.mark.parametrize("theme", THEMES)
def test_a_one_feeder_ring_sits_centred_in_a_picture_its_own_size(page, live_server, moderator, artifacts, theme):
    """kim and one alt: the picture is two circles and their links, so its viewBox is their box plus a small
    margin: the drawn content (svg.getBBox) centred in it, under 40 units of blank on any side, and the SVG on
    screen no larger than its content needs (a 560-unit square around two circles was ~250 px of blank)."""
    arena = Arena()
    build_ring(arena, main="kim", alts=("kim_alt",), games=6, ip="203.0.113.7")
    flag = Flag.objects.get()
    themed(page, theme)
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/flag/{flag.pk}/change/")
    ring = page.locator("svg.ring")
    expect(ring.locator("g.node.feeder")).to_have_count(1)
    check_drawing(page, "svg.ring")
    geometry = check_no_line_through_labels(page)
    assert geometry["labels"], "the games line's label is drawn"
    vx, vy, vw, vh = geometry["viewBox"]
    cx, cy, cw, ch = geometry["content"]
    left, right = cx - vx, (vx + vw) - (cx + cw)
    top, bottom = cy - vy, (vy + vh) - (cy + ch)
    for side, blank in (("left", left), ("right", right), ("top", top), ("bottom", bottom)):
        assert -0.5 <= blank <= 40, f"{side} blank {blank:.1f} of {geometry}"
    # Centred: the blank on opposite sides within a few units (label width estimates are conservative).
    assert abs(left - right) <= 30 and abs(top - bottom) <= 30, geometry
    box = ring.bounding_box()
    assert box is not None and box["width"] <= cw + 80 and box["height"] <= ch + 80, (box, geometry)
    page.screenshot(path=str(artifacts / f"shift_ring_one_feeder_{theme}.png"), full_page=True)


@pytest.mark.parametrize("theme", THEMES)
def test_claim_confirm_and_void_the_ring_from_its_flag(page, live_server, moderator, artifacts, theme):
    arena = Arena()
    build_ring(arena, main="kim", alts=("kim_alt",), games=6, ip="203.0.113.7")
    arena.game([("olga", fresh_ip()), ("kim", fresh_ip())])
    flag = Flag.objects.get()
    themed(page, theme)
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/moderation/flag/{flag.pk}/change/")
    expect(page.locator("div.breadcrumbs")).to_contain_text("kim in tokaido")
    page.click("a.action-claim")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("#case-claim")).to_contain_text(f"Held by {moderator.get_username()}")
    page.click("a.action-confirm")
    preview = page.locator("#rating-preview")
    expect(preview).to_contain_text("If kim is the primary account")
    kim_elo = f"{player('kim').ratings.get(title='tokaido').elo:.2f}"
    expect(preview.locator("table").first.locator("td.before")).to_have_text(kim_elo)
    expect(preview.locator("table").first.locator("td.after")).to_have_text("1500.00")
    page.check(f"input[name=primary][value='{player('kim').pk}']")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text("Confirmed: kim_alt banned")
    expect(page.locator("#case-claim")).to_contain_text("Nobody holds this case")  # resolved: the claim ends
    page.click("a.action-void")
    consequences = page.locator("ul.consequences")
    expect(consequences).to_contain_text("void the 6 rated games")
    for game in games_of("kim_alt"):
        expect(consequences).to_contain_text(game.table_id)
    page.screenshot(path=str(artifacts / f"shift_void_from_flag_{theme}.png"), full_page=True)
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text("Voided 6 game(s)")
    assert {g.status for g in games_of("kim_alt")} == {Game.Status.VOID}
    assert games_of("olga")[0].status == Game.Status.RATED
    expect(page.locator("a.action-void")).to_have_count(0)


@pytest.mark.parametrize("theme", THEMES)
def test_a_timed_ban_a_warning_and_a_note_on_the_player_page(page, live_server, moderator, artifacts, theme):
    Arena().game([("kim", fresh_ip()), ("olga", fresh_ip())])
    kim = player("kim")
    themed(page, theme)
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/arena/player/{kim.pk}/change/")
    page.click("a.action-warn")
    page.fill("textarea[name=note]", "stalling in lost games")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("#player-warnings li")).to_contain_text("stalling in lost games")
    page.click("a.action-note")
    page.fill("textarea[name=note]", "said sorry on the forum")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("#player-notes li")).to_contain_text("said sorry on the forum")
    page.click("a.action-reset")
    expect(page.locator("#rating-preview td.after")).to_have_text("1500.00")
    page.go_back()
    page.click("a.action-ban")
    page.select_option("select[name=duration]", "168")
    page.fill("textarea[name=note]", "a week off")
    page.click("#moderation-action-form input[type=submit]")
    expect(page.locator("ul.messagelist li.success")).to_contain_text(re.compile(r"^Banned kim until "))
    until = BanTerm.objects.get(player=kim).until
    expect(page.locator("#player-standing .ban-term")).to_contain_text(f"Banned until {until:%Y-%m-%d %H:%M} UTC")
    page.screenshot(path=str(artifacts / f"shift_player_standing_{theme}.png"), full_page=True)
    assert list(AuditEntry.objects.order_by("pk").values_list("action", flat=True)) == ["warn", "note", "ban"]


@pytest.mark.parametrize("theme", THEMES)
def test_a_refusal_keeps_the_admin_layout_and_a_way_back(page, live_server, artifacts, theme, transactional_db):
    from django.contrib.auth.models import User

    from tests.db.moderation.panel_helpers import PASSWORD

    Arena().game([("kim", fresh_ip()), ("olga", fresh_ip())])
    staff = User.objects.create_user("helpdesk", password=PASSWORD, is_staff=True)
    themed(page, theme)
    page.goto(f"{live_server.url}/admin/login/?next=/admin/")
    page.fill("#id_username", staff.username)
    page.fill("#id_password", PASSWORD)
    page.click("#login-form input[type=submit]")
    response = page.goto(f"{live_server.url}/admin/arena/player/{player('kim').pk}/ban/")
    assert response is not None and response.status == 403
    expect(page.locator("#header")).to_be_visible()
    expect(page.locator(".refusal")).to_contain_text("may not ban here")
    page.screenshot(path=str(artifacts / f"shift_refusal_{theme}.png"), full_page=True)
    page.click("text=Dashboard")
    expect(page).to_have_url(f"{live_server.url}/admin/")


@pytest.mark.parametrize("theme", THEMES)
def test_a_rings_voided_games_draw_as_counted_marks_and_one_readable_refund_summary(
    page, live_server, moderator, artifacts, theme
):
    """kim beat kim_alt 8 times between honest games with olga; kim_alt is banned and the 8 games voided at once.
    kim's Tokaido plot draws each void at its time (no pile of overlapping labels), every text inside the SVG,
    apart and readable; the void's summary lists olga and kim once each, never the banned alt."""
    from moderation import services

    arena = Arena()
    arena.game([("kim", fresh_ip()), ("olga", fresh_ip())])
    for _ in range(4):
        arena.game([("kim", fresh_ip()), ("kim_alt", fresh_ip())])
    arena.game([("olga", fresh_ip()), ("kim", fresh_ip())])
    for _ in range(4):
        arena.game([("kim", fresh_ip()), ("kim_alt", fresh_ip())])
    arena.game([("kim", fresh_ip()), ("olga", fresh_ip())])
    services.player_ban(moderator=None, player=player("kim_alt"), note="alt")
    entry = services.games_void(moderator=None, games=games_of("kim_alt"), note="ring")
    themed(page, theme)
    login(page, live_server, moderator)
    page.goto(f"{live_server.url}/admin/arena/player/{player('kim').pk}/change/")
    plot = page.locator("figure.plot[data-title=tokaido] svg")
    # On the time axis (issue 27 §4) each void sits at its own game's time, apart from the others: 8 marks of one.
    expect(plot.locator("g.void")).to_have_count(8)
    expect(plot.locator("g.void[data-count='1']")).to_have_count(8)
    check_drawing(page, "figure.plot[data-title=tokaido] svg")
    page.screenshot(path=str(artifacts / f"shift_plot_voids_{theme}.png"), full_page=True)
    page.goto(f"{live_server.url}/admin/moderation/auditentry/{entry.pk}/change/")
    rows = page.locator("#refund-summary table.refunds tbody tr")
    handles = [rows.nth(i).get_attribute("data-player") for i in range(rows.count())]
    assert "kim_alt" not in handles and sorted(handles) == ["kim", "olga"]
    page.screenshot(path=str(artifacts / f"shift_refund_summary_{theme}.png"), full_page=True)
