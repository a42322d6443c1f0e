"""The panel's SVG pictures (backoffice/admin/charts.py): coordinates worked by hand, and hostile text escaped.

Canvas 640 x 220, padding left 52, right 16, top 18, bottom 34: x runs 52..624 (572 units), y 186 (bottom) to 18.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from backoffice.admin.charts import HistoryPlot, HistoryPoint, history_svg
from backoffice.admin.ring_chart import Ring, RingLink, RingNode, ring_svg

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def _at(hours: int) -> datetime:
    return T0 + timedelta(hours=hours)


def _polyline(svg: str) -> str:
    return re.search(r'<polyline class="line" points="([^"]+)"', svg).group(1)


def test_two_games_and_a_reset_by_hand():
    """1500 -> 1530 -> 1560, then a reset to 1500. Values 1500..1560, margin max(60 * 0.08, 5) = 5, so y spans
    1495..1565 (70): y(v) = 186 - (v - 1495) * 168 / 70 = 186 - 2.4 (v - 1495): y(1500) = 174, y(1530) = 102,
    y(1560) = 30. The x axis is time (issue 27 §4): the entries at 0, 1 and 2 h span 2 h over 572 units, so
    x = 52, 338, 624. The line starts at the first game's time from 1500, rises to 1530 there, runs to 1560 at
    338, and the reset drops vertically at 624 from 1560 to R0 (1500)."""
    svg = history_svg(
        HistoryPlot(
            title="tokaido",
            points=[
                HistoryPoint(at=_at(0), before=1500, after=1530, kind="game", game_id=1),
                HistoryPoint(at=_at(1), before=1530, after=1560, kind="game", game_id=2),
                HistoryPoint(at=_at(2), before=1560, after=1500, kind="reset"),
            ],
        )
    )
    assert _polyline(svg) == "52.0,174.0 52.0,102.0 338.0,30.0 624.0,30.0 624.0,174.0"
    assert '<a href="/admin/arena/game/1/change/"><circle class="dot" cx="52.0" cy="102.0"' in svg  # a link
    assert svg.count('<g class="reset">') == 1
    assert '<line x1="624.0" y1="18" x2="624.0" y2="186"/>' in svg  # the reset's red dashed vertical
    assert svg.count('<circle class="dot"') == 2  # games get dots, the reset does not
    assert '<line class="initial" x1="52" y1="174.0"' in svg  # the R0 line at y(1500)


def test_a_voided_game_sits_at_its_own_time():
    """Two remaining entries at 0 and 2 h (572 units); a void finished at 1 h sits half way: x = 52 + 286 = 338,
    its cross drawn from (334, 182)."""
    svg = history_svg(
        HistoryPlot(
            title="tokaido",
            points=[
                HistoryPoint(at=_at(0), before=1500, after=1530, kind="game", game_id=1),
                HistoryPoint(at=_at(2), before=1530, after=1515, kind="game", game_id=3),
            ],
            voids=[_at(1)],
        )
    )
    assert '<g class="void" data-count="1"><path d="M334.0,182.0 l8,8 m0,-8 l-8,8"/>' in svg
    assert "void</text>" in svg


def test_an_empty_history_says_so():
    svg = history_svg(HistoryPlot(title="nile", points=[]))
    assert "No rated games yet." in svg and "<polyline" not in svg


def test_long_histories_drop_the_dots_but_keep_the_line():
    points = [HistoryPoint(at=_at(i), before=1500 + i, after=1501 + i, kind="game", game_id=i) for i in range(10)]
    svg = history_svg(HistoryPlot(title="wizard", points=points), dots=False)
    assert "<circle" not in svg and len(_polyline(svg).split()) == 11


def test_text_in_the_plot_is_escaped():
    svg = history_svg(
        HistoryPlot(title=HOSTILE, points=[HistoryPoint(at=_at(0), before=1500, after=1530, kind="game", game_id=1)])
    )
    assert "<script" not in svg and "<img" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in svg


def test_ring_positions_by_hand():
    """Canvas 560, radius 200: the beneficiary at the centre (280, 280); two feeders at -90 and +90 degrees:
    (280, 80) and (280, 480)."""
    svg = ring_svg(Ring(nodes=[RingNode("kim", beneficiary=True), RingNode("alt1"), RingNode("alt2")], links=[]))
    assert '<g class="node beneficiary" data-handle="kim"><circle cx="280.0" cy="280.0" r="34"/>' in svg
    assert '<g class="node feeder" data-handle="alt1"><circle cx="280.0" cy="80.0" r="26"/>' in svg
    assert '<g class="node feeder" data-handle="alt2"><circle cx="280.0" cy="480.0" r="26"/>' in svg


def test_parallel_links_bend_apart_and_crowded_ones_say_so():
    """kim (280, 280) to alt (280, 80): the games link is straight (control at the midpoint (280, 180)); the second
    link between the pair bends 64 to the side: direction (0, -200), so the control point is (280 + 64, 180)."""
    svg = ring_svg(
        Ring(
            nodes=[RingNode("kim", beneficiary=True), RingNode("alt")],
            links=[
                RingLink("kim", "alt", "games", "6/6 won (100 %)"),
                RingLink("kim", "alt", "ip", "ip ×1", widely_shared=True),
            ],
        )
    )
    assert 'd="M280.0,280.0 Q280.0,180.0 280.0,80.0"' in svg
    assert 'd="M280.0,280.0 Q344.0,180.0 280.0,80.0"' in svg
    assert '<g class="link ip widely-shared">' in svg
    assert "<title>kim – alt: ip ×1 (widely shared: many accounts use it)</title>" in svg


def test_banned_accounts_are_crossed_and_names_escaped():
    svg = ring_svg(
        Ring(
            nodes=[RingNode("kim", beneficiary=True), RingNode(HOSTILE, banned=True, lines=[HOSTILE])],
            links=[RingLink("kim", HOSTILE, "games", HOSTILE)],
        )
    )
    assert '<path class="ban"' in svg
    assert "<script" not in svg and "<img" not in svg
    assert svg.count("&lt;script&gt;") >= 4  # the name, its line, the link label and the link's tooltip


def test_a_link_between_two_feeders_arcs_around_the_beneficiary():
    """alt1 (280, 80) and alt2 (280, 480) face each other across kim: the bisector is a quarter turn past alt1's
    direction (-90° + 90° = 0°), the control point 1.5 x 200 = 300 out: (580, 280). The curve's middle is then
    (P0 + 2C + P2) / 4 = (430, 280), 150 from kim's centre, clear of kim's circle (radius 34)."""
    svg = ring_svg(
        Ring(
            nodes=[RingNode("kim", beneficiary=True), RingNode("alt1"), RingNode("alt2")],
            links=[RingLink("alt1", "alt2", "device", "")],
        )
    )
    assert 'd="M280.0,80.0 Q580.0,280.0 280.0,480.0"' in svg
    assert "<text x=" not in svg.split('class="link device"')[1].split("</g>")[0]  # no label given, none drawn


def test_voids_in_one_slot_are_one_mark_and_labels_never_touch():
    """54 voids between 7 remaining entries: one mark per slot with its count, e.g. "void ×8"; labels that would
    touch the previous one are dropped (an 8-slot axis over 572 units leaves 71.5 units a slot, wide enough)."""
    points = [
        HistoryPoint(at=_at(10 * i), after=1500 + i, kind="game", before=1500 + i - 1, game_id=i) for i in range(1, 8)
    ]
    voids = [_at(10 * (i % 7) + 5) for i in range(54)]  # 8 or 7 voids after each entry's slot
    svg = history_svg(HistoryPlot(title="wizard", points=points, voids=voids))
    assert svg.count('<g class="void"') == 7
    assert svg.count('data-count="8"') == 5 and svg.count('data-count="7"') == 2  # 54 = 5 * 8 + 2 * 7
    assert svg.count(">void ×8</text>") + svg.count(">void ×7</text>") == 7


def test_a_flagged_game_is_ringed_even_without_dots():
    points = [
        HistoryPoint(
            at=_at(i), before=1500 + i, after=1501 + i, kind="game", game_id=i, table_id=f"T-{i}", flagged=i == 3
        )
        for i in range(10)
    ]
    svg = history_svg(HistoryPlot(title="wizard", points=points), dots=False)
    assert svg.count("<circle") == 1 and '<circle class="dot flagged"' in svg and "flagged game T-3" in svg


def _texts(svg: str) -> list[str]:
    return re.findall(r"<text [^>]*>([^<]*)</text>", svg)


def test_two_resets_a_minute_apart_draw_both_lines_but_one_label():
    """A confirmation's reset and a manual one a minute later, on a two-day history: both red lines are drawn, at
    x 624 and 624 - 572 / 2880 = 623.8; the second "reset" fits neither centred, nor right, nor left of its line
    without touching the first, so it is left out (its tooltip stays)."""
    points = [
        HistoryPoint(at=_at(0), before=1500, after=1530, kind="game", game_id=1),
        HistoryPoint(at=_at(48) - timedelta(minutes=1), before=1530, after=1500, kind="reset"),
        HistoryPoint(at=_at(48), before=1500, after=1500, kind="reset"),
    ]
    svg = history_svg(HistoryPlot(title="wizard", points=points))
    assert svg.count('<g class="reset">') == 2
    assert _texts(svg).count("reset") == 1


def test_a_void_at_the_right_edge_keeps_its_label_on_the_canvas_and_off_the_r0_label():
    """12 voids at the last moment of the history: "void ×12" (8 characters, 52.8 units wide at 6.6) centred on x 624
    would end at 650.4, past the 640-unit canvas, so it is moved in to end at 640 (its middle at 613.6). The R0
    label (at the right end, above the dashed R0 line) is not near: R0 = 1500 is the top of this history."""
    points = [
        HistoryPoint(at=_at(i), before=1500 - 10 * i, after=1490 - 10 * i, kind="game", game_id=i) for i in range(5)
    ]
    svg = history_svg(HistoryPlot(title="wizard", points=points, voids=[_at(4)] * 12))
    assert '<text x="613.6" y="178.0" text-anchor="middle">void ×12</text>' in svg
    assert "R0" in _texts(svg)


def test_a_void_at_the_bottom_left_corner_is_labelled_beside_its_mark_not_over_the_lowest_tick():
    """The first void at x 52 with the lowest tick "1495" (its box ends at x 46, centred on y 186): "void ×8"
    centred on 52 would reach back to 25.6, over the tick, so it starts at its mark instead (x 52, anchor start)."""
    points = [
        HistoryPoint(at=_at(10 * i), after=1500 + i, kind="game", before=1500 + i - 1, game_id=i) for i in range(1, 8)
    ]
    voids = [_at(10 * (i % 7) + 5) for i in range(54)]
    svg = history_svg(HistoryPlot(title="wizard", points=points, voids=voids))
    assert '<text x="52.0" y="178.0" text-anchor="start">void ×8</text>' in svg
    assert "1495" in _texts(svg)
