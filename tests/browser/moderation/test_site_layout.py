"""The panel measured on a realistic site, in Chromium, light and dark, at 1,400 and 1,000 px (issue 27 §4 and §5;
docs/moderation.md, "Pages that fit"): the shift's population (``manage.py simulate``'s mix: 8 rings, 12 households,
a café of 12, honest players; fewer honest games than the default, to keep the test short) posted through the real
API, rated and looked at by detection; then a shift's work: a ring confirmed from its flag and its games voided, a
main reset twice (two resets a minute apart), a ban, a warning, reports filed by players.

On every page, list, case and action page alike: nothing scrolls sideways, the action buttons never cover the
heading, no text shows a doubled ellipsis ("……", "...…"), every text is readable against what is behind it (4.5:1,
3:1 for large text: WCAG AA), and every label of every picture (rating plots and rings) lies inside its SVG and
touches no other label (boxes measured by the browser: getBBox, getBoundingClientRect); the main's plots end on R0
after its two resets. Screenshots in var/artifacts/.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from playwright.sync_api import Page

from arena.models import Game, Player
from moderation import services
from moderation.models import Flag, Report
from tests.browser.moderation.conftest import login
from tests.browser.moderation.measure import DOUBLED_ELLIPSIS, OVERFLOW, OVERLAPS, TEXT_COLOURS
from tests.browser.moderation.test_shift import DRAWN, contrast, overlap
from tests.db.moderation.helpers import detect
from tests.db.moderation.panel_helpers import Arena
from tests.db.ratings.helpers import ensure_hanabot_table, rate_all

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (1400, 1000)
THEMES = ("light", "dark")


@pytest.fixture
def site(transactional_db, moderator) -> dict[str, str]:
    """The shift's site and a moderator's first hour on it; the pages to measure, by name."""
    ensure_hanabot_table()  # the previous test's flush emptied it; Hanabi games are rated against it
    out = io.StringIO()
    call_command("simulate", seed=3, games=900, no_progress=True, stdout=out, stderr=io.StringIO())
    truth = json.loads(out.getvalue())
    rate_all()
    detect()
    assert len(truth["rings"]) == 8 and len(truth["households"]) == 12 and len(truth["cafes"]) == 1
    flags = list(Flag.objects.filter(status=Flag.Status.OPEN).order_by("-score", "pk"))
    assert len(flags) >= 6, "detection found the rings"
    ring, other = flags[0], flags[1]
    main = ring.beneficiary
    alts = list(Player.objects.filter(fed_flags__flag=ring))
    services.multiple_accounts_confirm(moderator=moderator, primary=main, flag=ring, note="one person, by the device")
    games = list(Game.objects.filter(seats__player__in=alts, status=Game.Status.RATED).distinct())
    void = services.games_void(moderator=moderator, games=games, note="the ring's games")
    services.player_reset(moderator=moderator, player=main, note="and once more by hand")
    alt = Player.objects.filter(fed_flags__flag=other).first()
    services.player_ban(moderator=moderator, player=alt, note="a week to think it over...", duration=None)
    house = Player.objects.get(handle=truth["households"][0][0])
    services.player_warn(moderator=moderator, player=house, note="Please keep the chat civil: insults lead to a ban.")
    cafe = truth["cafes"][0]
    arena = Arena()
    for i, accused in enumerate([[alt.handle], [other.beneficiary.handle, alt.handle], [cafe[1]], [cafe[2], cafe[3]]]):
        arena.report(
            reporter=cafe[0] if cafe[0] not in accused else cafe[4],
            accused=accused,
            reason=["multiple_accounts", "other"][i % 2],
            description=("They always lose to the same account... " * (3 + 4 * i)).strip(),
        )
    reports = list(Report.objects.order_by("pk"))
    pages = {
        "dashboard": "/admin/",
        "flags": "/admin/moderation/flag/",
        "flags-all": "/admin/moderation/flag/?status__exact=all",
        "reports": "/admin/moderation/report/",
        "audit": "/admin/moderation/auditentry/",
        "players": "/admin/arena/player/",
        "games": "/admin/arena/game/",
        "games-ring": f"/admin/arena/game/?q={main.handle}",
        "confirmed-flag": f"/admin/moderation/flag/{ring.pk}/change/",
        "void-ring": f"/admin/moderation/flag/{ring.pk}/void/",
        "report": f"/admin/moderation/report/{reports[1].pk}/change/",
        "report-confirm": f"/admin/moderation/report/{reports[1].pk}/confirm/",
        "report-duplicate": f"/admin/moderation/report/{reports[0].pk}/duplicate/",
        "main": f"/admin/arena/player/{main.pk}/change/",
        "banned": f"/admin/arena/player/{alt.pk}/change/",
        "household": f"/admin/arena/player/{house.pk}/change/",
        "ban": f"/admin/arena/player/{house.pk}/ban/",
        "game": f"/admin/arena/game/{games[0].pk}/change/",
        "void": f"/admin/moderation/auditentry/{void.pk}/change/",
    }
    for flag in flags[1:]:
        pages[f"flag-{flag.pk}"] = f"/admin/moderation/flag/{flag.pk}/change/"
    pages["flag-confirm"] = f"/admin/moderation/flag/{other.pk}/confirm/"
    pages["flag-duplicate"] = f"/admin/moderation/flag/{other.pk}/duplicate/"
    return pages


def _pictures(page: Page) -> list[str]:
    """Every SVG picture's labels: inside its box, no two touching, 3:1 against what is behind (as test_shift)."""
    wrong = []
    for svg in page.locator("svg.rating-plot, svg.ring").all():
        texts = svg.evaluate(DRAWN)
        name = svg.get_attribute("aria-label")
        for t in texts:
            x, y, w, h = t["box"]
            vx, vy, vw, vh = t["vb"]
            if not (vx - 0.5 <= x and vy - 0.5 <= y and x + w <= vx + vw + 0.5 and y + h <= vy + vh + 0.5):
                wrong.append(f"{name}: {t['text']!r} outside the picture {t['box']} in {t['vb']}")
            if t["fill"] is None or contrast(t["fill"], t["bg"]) < 3:
                wrong.append(f"{name}: {t['text']!r} unreadable, {t['fill']} on {t['bg']}")
        for i, a in enumerate(texts):
            for b in texts[i + 1 :]:
                if overlap(a["rect"], b["rect"]):
                    wrong.append(f"{name}: {a['text']!r} touches {b['text']!r}")
    return wrong


def _texts(page: Page) -> list[str]:
    wrong = []
    texts = page.evaluate(TEXT_COLOURS)
    assert len(texts) >= 5, texts  # the page's texts were read: the check is not vacuous
    for t in texts:
        large = t["size"] >= 24 or (t["size"] >= 18.66 and t["bold"])
        if t["fg"] is None or contrast(t["fg"], t["bg"]) < (3 if large else 4.5):
            wrong.append(f"{t['text']!r} ({t['where']}) {t['fg']} on {t['bg']}")
    return wrong


# Each plot's drawn line: its last point, the dashed R0 line's y, and how many resets it marks.
LINE_ENDS = """(s) => { const pts = s.querySelector('polyline.line').points;
  return {last: pts.getItem(pts.numberOfItems - 1).y, r0: s.querySelector('line.initial').y1.baseVal.value,
          resets: s.querySelectorAll('g.reset').length}; }"""


def _reset_ends_on_r0(page: Page) -> list[str]:
    """The main was confirmed (reset to R0), its ring's games voided (the title rebuilt) and reset again by hand: in
    each title's plot the drawn line ends on the dashed R0 line, read from the drawn SVG, not from the code."""
    wrong = []
    for svg in page.locator("svg.rating-plot").all():
        ends = svg.evaluate(LINE_ENDS)
        if ends["resets"] < 2 or abs(ends["last"] - ends["r0"]) > 0.11:
            wrong.append(
                f"{svg.get_attribute('aria-label')}: the line ends at y {ends['last']}, R0 at {ends['r0']}, "
                f"{ends['resets']} resets"
            )
    return wrong


@pytest.mark.parametrize("theme", THEMES)
def test_every_page_of_a_simulated_site_fits_and_reads_at_both_widths(
    browser, live_server, moderator, site, theme, artifacts
):
    wrong: list[str] = []
    plots = 0
    for width in WIDTHS:
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": width, "height": 900}, color_scheme=theme
        )
        page = context.new_page()
        login(page, live_server, moderator)
        for name, url in site.items():
            answer = page.goto(url)
            assert answer is not None and answer.status == 200, (name, url, answer and answer.status)
            where = f"{theme} {width} {name}"
            sizes, boxes = page.evaluate(OVERFLOW), page.evaluate(OVERLAPS)
            if sizes["page"] > sizes["inner"]:
                wrong.append(f"{where}: the page is {sizes['page']} px wide in {sizes['inner']}")
            if sizes["scrollers"]:
                wrong.append(f"{where}: scrolls inside {sizes['scrollers']}")
            if boxes["overlaps"]:
                wrong.append(f"{where}: buttons over the heading {boxes['overlaps']}")
            wrong.extend(f"{where}: doubled ellipsis in {t!r}" for t in page.evaluate(DOUBLED_ELLIPSIS))
            wrong.extend(f"{where}: {problem}" for problem in _texts(page))
            wrong.extend(f"{where}: {problem}" for problem in _pictures(page))
            plots += page.locator("svg.rating-plot").count()
            if name == "main":
                wrong.extend(f"{where}: {problem}" for problem in _reset_ends_on_r0(page))
            if name in ("main", "confirmed-flag", "dashboard", "flags", "audit", "void"):
                page.screenshot(path=str(artifacts / f"site_{theme}_{width}_{name}.png"), full_page=True)
        context.close()
    assert plots >= 4, "the players' plots were measured"
    assert not wrong, "\n".join(wrong[:60]) + f"\n({len(wrong)} in all)"
