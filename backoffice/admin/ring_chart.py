"""The ring of accounts on a flag's page, drawn on the server as inline SVG (the reasons and the escaping rule are
in ``backoffice/admin/charts.py``, whose ``svg_text``/``svg_attr``/``svg_num`` write every value here).

Pure: no Django.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from backoffice.admin.charts import svg_attr as _attr
from backoffice.admin.charts import svg_num as _num
from backoffice.admin.charts import svg_text as _text

RING_SIZE = 560
RING_RADIUS = 200


@dataclass(frozen=True)
class RingNode:
    """An account in the picture; ``lines`` are short facts under its name (age, game count, status)."""

    handle: str
    beneficiary: bool = False
    lines: Sequence[str] = ()
    banned: bool = False


@dataclass(frozen=True)
class RingLink:
    """A line between two accounts: ``kind`` is ``games`` (the shared games and win share) or ``ip``/``device``
    (a shared hash); ``widely_shared`` marks an address many unrelated accounts use, drawn faint and labelled."""

    a: str
    b: str
    kind: str
    label: str
    widely_shared: bool = False


@dataclass
class Ring:
    nodes: list[RingNode] = field(default_factory=list)
    links: list[RingLink] = field(default_factory=list)


def ring_radius(feeders: int) -> float:
    """The circle grows past four feeders (30 units each) so the spokes' labels keep room beside their lines;
    the viewBox follows the content, so a bigger ring is a bigger picture, not a cramped one."""
    return RING_RADIUS + 30 * max(0, feeders - 4)


def _positions(nodes: Sequence[RingNode]) -> dict[str, tuple[float, float]]:
    """Beneficiary in the middle, every other account evenly on a circle around it, the first at the top."""
    centre = RING_SIZE / 2
    out: dict[str, tuple[float, float]] = {}
    others = [n for n in nodes if not n.beneficiary]
    radius = ring_radius(len(others))
    for n in nodes:
        if n.beneficiary:
            out[n.handle] = (centre, centre)
    for i, n in enumerate(others):
        angle = -math.pi / 2 + 2 * math.pi * i / len(others)
        out[n.handle] = (centre + radius * math.cos(angle), centre + radius * math.sin(angle))
    return out


def _outer_control(a: tuple[float, float], b: tuple[float, float], nth: int) -> tuple[float, float]:
    """A link between two feeders arcs outside the circle, never through the beneficiary in the middle: its
    control point lies on the bisector of the two feeders' directions (a quarter turn past the first one when they
    face each other), 1.5 radii out, and further for each parallel link."""
    centre = RING_SIZE / 2
    a1 = math.atan2(a[1] - centre, a[0] - centre)
    a2 = math.atan2(b[1] - centre, b[0] - centre)
    sx, sy = math.cos(a1) + math.cos(a2), math.sin(a1) + math.sin(a2)
    bisector = a1 + math.pi / 2 if math.hypot(sx, sy) < 1e-9 else math.atan2(sy, sx)
    reach = math.hypot(a[0] - centre, a[1] - centre) * (1.5 + 0.3 * nth)
    return centre + reach * math.cos(bisector), centre + reach * math.sin(bisector)


# Conservative text widths (user units a character; the SVG is drawn 1:1): bold 12px labels, 11px facts.
LABEL_CHAR, LABEL_HEIGHT = 6.8, 15.0
FACT_CHAR, FACT_HEIGHT = 6.8, 13.0
Box = tuple[float, float, float, float]  # left, top, right, bottom


def _node_radius(node: RingNode) -> int:
    return 34 if node.beneficiary else 26


def _node_boxes(nodes: Sequence[RingNode], pos: dict[str, tuple[float, float]]) -> list[Box]:
    """What a link label must not cover: each node's disc and the lines of facts under it."""
    boxes: list[Box] = []
    for node in nodes:
        nx, ny = pos[node.handle]
        r = _node_radius(node)
        boxes.append((nx - r - 2, ny - r - 2, nx + r + 2, ny + r + 2))
        for i, line in enumerate(node.lines):
            half = len(line) * FACT_CHAR / 2
            base = ny + r + 14 + 13 * i
            boxes.append((nx - half, base - FACT_HEIGHT + 2, nx + half, base + 4))
    return boxes


def _hits(box: Box, boxes: Sequence[Box]) -> int:
    return sum(1 for b in boxes if box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3])


Point = tuple[float, float]
Curve = tuple[Point, Point, Point]  # a quadratic Bézier: start, control, end
CURVE_STEPS = 32  # segments a curve is cut into for the geometry below; finer than any label is wide
MARGIN = 10  # blank user units kept around the drawn content by the viewBox


def _bezier(c: Curve, t: float) -> Point:
    (x0, y0), (x1, y1), (x2, y2) = c
    return ((1 - t) ** 2 * x0 + 2 * (1 - t) * t * x1 + t**2 * x2, (1 - t) ** 2 * y0 + 2 * (1 - t) * t * y1 + t**2 * y2)


def _samples(c: Curve) -> list[Point]:
    return [_bezier(c, i / CURVE_STEPS) for i in range(CURVE_STEPS + 1)]


def _segment_meets_box(p: Point, q: Point, box: Box) -> bool:
    """Liang-Barsky clipping: does the segment p-q pass through the (open) box?"""
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for edge_p, edge_q in ((-dx, p[0] - box[0]), (dx, box[2] - p[0]), (-dy, p[1] - box[1]), (dy, box[3] - p[1])):
        if edge_p == 0:
            if edge_q <= 0:
                return False
            continue
        r = edge_q / edge_p
        if edge_p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 >= t1:
            return False
    return True


def _crossings(box: Box, lines: Sequence[Sequence[Point]]) -> int:
    """How many drawn links pass through ``box`` (each link's sampled polyline)."""
    return sum(1 for pts in lines if any(_segment_meets_box(a, b, box) for a, b in itertools.pairwise(pts)))


def _place_label(
    label: str, curve: Curve, occupied: list[Box], lines: Sequence[Sequence[Point]], nth: int
) -> tuple[float, float]:
    """Where ``label`` goes (its baseline's middle): beside its own curve, never on it, so no line strikes through
    the text. Candidates sweep along the curve (from the middle outward, parallel links starting apart), on either
    side, a little and then further off it; the first whose box (grown by a small gap) meets no occupied box and
    no link wins, else the one meeting the fewest (a link crossing counts more than touching a box). The chosen
    box is added to ``occupied``."""
    half, height = len(label) * LABEL_CHAR / 2, LABEL_HEIGHT + 1
    start = (0.5, 0.62, 0.38, 0.7, 0.3)[nth % 5]
    sweep = [start] + [start + d * k for k in range(1, 33) for d in (0.025, -0.025)]
    best: tuple[int, float, float, Box] | None = None
    for gap in (4.0, 12.0, 24.0, 40.0):
        for t in sweep:
            if not 0.1 <= t <= 0.9:
                continue
            px, py = _bezier(curve, t)
            (x0, y0), (x1, y1), (x2, y2) = curve
            tx, ty = 2 * (1 - t) * (x1 - x0) + 2 * t * (x2 - x1), 2 * (1 - t) * (y1 - y0) + 2 * t * (y2 - y1)
            norm = math.hypot(tx, ty) or 1.0
            nx, ny = -ty / norm, tx / norm
            # From the box's centre to its edge along the normal, plus the gap: the box touches no point of the
            # curve near t.
            reach = half * abs(nx) + height / 2 * abs(ny) + gap
            for side in (1, -1):
                cx, cy = px + side * nx * reach, py + side * ny * reach
                box = (cx - half, cy - height / 2, cx + half, cy + height / 2)
                grown = (box[0] - 2, box[1] - 2, box[2] + 2, box[3] + 2)
                score = _hits(grown, occupied) + 3 * _crossings(grown, lines)
                if best is None or score < best[0]:
                    best = (score, cx, cy, box)
                if score == 0:
                    break
            if best is not None and best[0] == 0:
                break
        if best is not None and best[0] == 0:
            break
    assert best is not None
    occupied.append(best[3])
    # The box's top is 11 units above the baseline of a 12px label (its ascent), as in ``_node_boxes``.
    return best[1], best[3][1] + 11


def _link_curve(link: RingLink, pos: dict[str, Point], beneficiary: str | None, nth: int) -> Curve:
    (x1, y1), (x2, y2) = pos[link.a], pos[link.b]
    if beneficiary not in (link.a, link.b):
        return (x1, y1), _outer_control(pos[link.a], pos[link.b], nth), (x2, y2)
    # Offset the control point sideways: 0, +1, -1, +2... so parallel links do not overlap.
    bend = (0, 1, -1, 2, -2)[nth % 5] * 64
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1.0
    return (x1, y1), (mx - dy / length * bend, my + dx / length * bend), (x2, y2)


def ring_svg(ring: Ring) -> str:
    """The ring as a picture: accounts as labelled circles (the beneficiary in the middle, banned ones crossed),
    game lines solid with the win share, hash links dashed (device) or dotted (IP), widely-shared ones faint (and
    said so in their tooltip). A link with an empty label is drawn without text; a label sits beside its line,
    never on any line. Two links between the same pair are drawn as gentle opposite curves. The viewBox is the
    drawn content's box plus a small margin, so a small ring (one feeder) is not a speck in a wide blank square."""
    pos = _positions(ring.nodes)
    pair_count: dict[frozenset[str], int] = {}
    beneficiary = next((n.handle for n in ring.nodes if n.beneficiary), None)
    drawn: list[tuple[RingLink, Curve, int]] = []
    for link in ring.links:
        if link.a not in pos or link.b not in pos:
            continue
        pair = frozenset((link.a, link.b))
        nth = pair_count.get(pair, 0)
        pair_count[pair] = nth + 1
        drawn.append((link, _link_curve(link, pos, beneficiary, nth), nth))
    lines = [_samples(curve) for _, curve, _ in drawn]
    occupied = _node_boxes(ring.nodes, pos)
    extent: list[Box] = list(occupied) + [
        (min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts))
        for pts in lines
    ]
    body: list[str] = []
    for link, curve, nth in drawn:
        (x1, y1), (cx, cy), (x2, y2) = curve
        classes = f"link {link.kind}" + (" widely-shared" if link.widely_shared else "")
        label = link.label
        tip = label + (" (widely shared: many accounts use it)" if link.widely_shared else "")
        text = ""
        if label:
            lx, ly = _place_label(label, curve, occupied, lines, nth)
            extent.append(occupied[-1])
            text = f'<text x="{_num(lx)}" y="{_num(ly)}" text-anchor="middle">{_text(label)}</text>'
        body.append(
            f'<g class="{_attr(classes)}"><path d="M{_num(x1)},{_num(y1)} Q{_num(cx)},{_num(cy)} '
            f'{_num(x2)},{_num(y2)}"/>' + text + f"<title>{_text(f'{link.a} – {link.b}: {tip}')}</title></g>"
        )
    for node in ring.nodes:
        nx, ny = pos[node.handle]
        classes = "node" + (" beneficiary" if node.beneficiary else " feeder") + (" banned" if node.banned else "")
        radius = _node_radius(node)
        body.append(
            f'<g class="{classes}" data-handle="{_attr(node.handle)}">'
            f'<circle cx="{_num(nx)}" cy="{_num(ny)}" r="{radius}"/>'
        )
        if node.banned:
            r = radius * 0.7
            body.append(
                f'<path class="ban" d="M{_num(nx - r)},{_num(ny - r)} L{_num(nx + r)},{_num(ny + r)} '
                f'M{_num(nx + r)},{_num(ny - r)} L{_num(nx - r)},{_num(ny + r)}"/>'
            )
        # A handle wider than its circle is squeezed to fit (7.2 user units a character at 13px is a safe upper
        # bound for sans-serif): a name never spills out of its circle nor is cut.
        room = 2 * radius - 8
        fit = f' textLength="{room}" lengthAdjust="spacingAndGlyphs"' if len(node.handle) * 7.2 > room else ""
        body.append(
            f'<text class="handle" x="{_num(nx)}" y="{_num(ny + 4)}" text-anchor="middle"{fit}>'
            f"{_text(node.handle)}</text>"
        )
        for i, line in enumerate(node.lines):
            body.append(
                f'<text class="fact" x="{_num(nx)}" y="{_num(ny + radius + 14 + 13 * i)}" '
                f'text-anchor="middle">{_text(line)}</text>'
            )
        body.append("</g>")
    if extent:
        left, top = min(b[0] for b in extent) - MARGIN, min(b[1] for b in extent) - MARGIN
        right, bottom = max(b[2] for b in extent) + MARGIN, max(b[3] for b in extent) + MARGIN
    else:
        left, top, right, bottom = 0.0, 0.0, float(RING_SIZE), float(RING_SIZE)
    width, height = right - left, bottom - top
    # Drawn 1:1 (the label widths above are user units at the page's pixel size): width and height are the
    # viewBox's, and the stylesheet only caps the width to the page's.
    head = (
        f'<svg class="ring" role="img" viewBox="{_num(left)} {_num(top)} {_num(width)} {_num(height)}" '
        f'width="{_num(width)}" height="{_num(height)}" '
        f'xmlns="http://www.w3.org/2000/svg" aria-label="Ring of accounts">'
        "<title>Ring of accounts</title>"
    )
    return head + "".join(body) + "</svg>"
