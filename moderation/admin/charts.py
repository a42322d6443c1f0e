"""The panel's two pictures, drawn on the server as inline SVG: a rating history per title and a ring of accounts.

Server-side SVG rather than a JavaScript chart library: nothing to vendor or keep patched, nothing from a CDN, the
picture is in the page the moment it loads (screenshots and printouts included), and every piece of text in it
goes through one escaping function here, so a hostile string cannot become markup. Moderators read shapes, not
axes to the decimal, so a plain polyline with marked resets and voids is all the plot needs.

Pure: no Django. The admin marks the returned strings safe because every interpolated value below is either a
number formatted here or a string passed through ``_text``/``_attr``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from html import escape

# The plot's canvas (user units); the SVG scales to the page width through its viewBox.
WIDTH = 640
HEIGHT = 220
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 52, 16, 18, 34


def _text(value: object) -> str:
    """Text content: every character that could open markup is an entity."""
    return escape(str(value), quote=True)


def _attr(value: object) -> str:
    return escape(str(value), quote=True)


def _num(value: float) -> str:
    """Coordinates with one decimal: enough for a 640-unit canvas, and stable for tests."""
    return f"{value:.1f}"


@dataclass(frozen=True)
class HistoryPoint:
    """One entry of a title's history as the plot needs it: when, the rating after it, and what it was."""

    at: datetime
    after: float
    kind: str  # "game" or "reset"
    before: float
    game_id: int | None = None


@dataclass(frozen=True)
class HistoryPlot:
    """A title's history: its entries in order of application, and the player's voided games in that title."""

    title: str
    points: Sequence[HistoryPoint]
    voids: Sequence[datetime] = ()
    initial: float = 1500.0


def _scale(lo: float, hi: float, out_lo: float, out_hi: float):
    span = hi - lo
    if span <= 0:
        return lambda v: (out_lo + out_hi) / 2
    return lambda v: out_lo + (v - lo) / span * (out_hi - out_lo)


def _nice_ticks(lo: float, hi: float, count: int = 4) -> list[float]:
    """Round rating values for the y axis (steps of 1, 2 or 5 times a power of ten)."""
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step) * step
    ticks = []
    value = first
    while value <= hi + 1e-9:
        ticks.append(round(value, 6))
        value += step
    return ticks


def _void_slots(points: Sequence[HistoryPoint], voids: Sequence[datetime]) -> list[float]:
    """Where a voided game goes on the ordinal axis: half a step after the last entry at or before its finish
    (slot 0 is the starting rating, entry i sits at slot i + 1)."""
    times = [p.at for p in points]
    return [sum(1 for t in times if t <= at) + 0.5 for at in voids]


def history_svg(plot: HistoryPlot, *, dots: bool = True) -> str:
    """The title's rating entry by entry: a line through the rating after every game (equal steps, so a burst of
    games played in one evening reads as clearly as a season), resets as red dashed verticals where the line drops
    to R0, voided games as grey crosses on the axis where they had been. The y range always holds R0, drawn
    dashed, so a reset reads as a return to it. ``dots`` off leaves only the line (long histories)."""
    points = list(plot.points)
    label = f"Rating history of {plot.title}"
    head = (f'<svg class="rating-plot" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'xmlns="http://www.w3.org/2000/svg" aria-label="{_attr(label)}" data-title="{_attr(plot.title)}">'
            f"<title>{_text(label)}</title>")
    if not points and not plot.voids:
        return head + (f'<text x="{WIDTH / 2:.1f}" y="{HEIGHT / 2:.1f}" text-anchor="middle" class="empty">'
                       "No rated games yet.</text></svg>")
    values = [plot.initial] + [p.after for p in points] + [p.before for p in points]
    lo, hi = min(values), max(values)
    margin = max((hi - lo) * 0.08, 5.0)
    lo, hi = lo - margin, hi + margin
    slots = max(len(points), 1)
    x = _scale(0, slots, PAD_LEFT, WIDTH - PAD_RIGHT)
    y = _scale(lo, hi, HEIGHT - PAD_BOTTOM, PAD_TOP)
    base = HEIGHT - PAD_BOTTOM
    parts = [head]
    parts.append(f'<line class="axis" x1="{PAD_LEFT}" y1="{base}" x2="{WIDTH - PAD_RIGHT}" y2="{base}"/>')
    for tick in _nice_ticks(lo, hi):
        ty = _num(y(tick))
        parts.append(f'<line class="grid" x1="{PAD_LEFT}" y1="{ty}" x2="{WIDTH - PAD_RIGHT}" y2="{ty}"/>'
                     f'<text class="tick" x="{PAD_LEFT - 6}" y="{ty}" text-anchor="end" '
                     f'dominant-baseline="middle">{tick:g}</text>')
    r0 = _num(y(plot.initial))
    parts.append(f'<line class="initial" x1="{PAD_LEFT}" y1="{r0}" x2="{WIDTH - PAD_RIGHT}" y2="{r0}"/>'
                 f'<text class="tick initial-label" x="{WIDTH - PAD_RIGHT}" y="{r0}" text-anchor="end" '
                 f'dy="-3">R0</text>')
    times = [p.at for p in points] + list(plot.voids)
    parts.append(f'<text class="tick" x="{PAD_LEFT}" y="{HEIGHT - 10}">{_text(min(times).strftime("%Y-%m-%d"))}'
                 f'</text><text class="tick" x="{WIDTH / 2:.1f}" y="{HEIGHT - 10}" text-anchor="middle">'
                 f'{len(points)} {"entry" if len(points) == 1 else "entries"}</text>'
                 f'<text class="tick" x="{WIDTH - PAD_RIGHT}" y="{HEIGHT - 10}" '
                 f'text-anchor="end">{_text(max(times).strftime("%Y-%m-%d"))}</text>')
    if points:
        coords = [(x(0), y(points[0].before))]
        for i, p in enumerate(points, start=1):
            if p.kind == "reset":
                coords.append((x(i), y(p.before)))
            coords.append((x(i), y(p.after)))
        path = " ".join(f"{_num(cx)},{_num(cy)}" for cx, cy in coords)
        parts.append(f'<polyline class="line" points="{path}"/>')
        for i, p in enumerate(points, start=1):
            px, py = _num(x(i)), _num(y(p.after))
            if p.kind == "reset":
                parts.append(
                    f'<g class="reset"><line x1="{px}" y1="{PAD_TOP}" x2="{px}" y2="{base}"/>'
                    f'<text x="{px}" y="{PAD_TOP - 4}" text-anchor="middle">reset</text>'
                    f"<title>{_text(f'reset on {p.at:%Y-%m-%d %H:%M}: {p.before:.2f} → {p.after:.2f}')}</title>"
                    "</g>")
            elif dots:
                tip = f"game {p.game_id} ({p.at:%Y-%m-%d}): {p.before:.2f} → {p.after:.2f} ({p.after - p.before:+.2f})"
                parts.append(f'<circle class="dot" cx="{px}" cy="{py}" r="2.5"><title>{_text(tip)}</title></circle>')
    # Voids that fall in one slot (a ring's games, between two remaining entries) are one mark, "void ×N", and a
    # label is dropped where it would touch the previous one (its mark and tooltip stay): 54 voids over 7 slots
    # read as 7 marks, not a pile of overlapping words.
    grouped: dict[float, list[datetime]] = {}
    for at, slot in zip(plot.voids, _void_slots(points, plot.voids), strict=True):
        grouped.setdefault(min(slot, slots), []).append(at)
    last_label_end = -1e9
    for slot, times_in_slot in sorted(grouped.items()):
        vx = x(slot)
        word = "void" if len(times_in_slot) == 1 else f"void ×{len(times_in_slot)}"
        half = len(word) * 3.6
        label = ""
        if vx - half > last_label_end + 2:
            label = f'<text x="{_num(vx)}" y="{_num(base - 8)}" text-anchor="middle">{_text(word)}</text>'
            last_label_end = vx + half
        tip = ", ".join(at.strftime("%Y-%m-%d %H:%M") for at in sorted(times_in_slot)[:10])
        tip += f" and {len(times_in_slot) - 10} more" if len(times_in_slot) > 10 else ""
        parts.append(
            f'<g class="void" data-count="{len(times_in_slot)}"><path d="M{_num(vx - 4)},{_num(base - 4)} '
            f'l8,8 m0,-8 l-8,8"/>{label}'
            f"<title>{_text(('voided game of ' if len(times_in_slot) == 1 else 'voided games of ') + tip)}</title>"
            "</g>")
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------------------------
# The ring
# ---------------------------------------------------------------------------------------------------------------

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


def _positions(nodes: Sequence[RingNode]) -> dict[str, tuple[float, float]]:
    """Beneficiary in the middle, every other account evenly on a circle around it, the first at the top."""
    centre = RING_SIZE / 2
    out: dict[str, tuple[float, float]] = {}
    others = [n for n in nodes if not n.beneficiary]
    for n in nodes:
        if n.beneficiary:
            out[n.handle] = (centre, centre)
    for i, n in enumerate(others):
        angle = -math.pi / 2 + 2 * math.pi * i / len(others)
        out[n.handle] = (centre + RING_RADIUS * math.cos(angle), centre + RING_RADIUS * math.sin(angle))
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
    reach = RING_RADIUS * (1.5 + 0.3 * nth)
    return centre + reach * math.cos(bisector), centre + reach * math.sin(bisector)


# Conservative text widths (user units a character; the SVG is drawn 1:1): bold 12px labels, 11px facts.
LABEL_CHAR, LABEL_HEIGHT = 7.6, 15.0
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


def _place_label(label: str, p0: tuple[float, float], p1: tuple[float, float], p2: tuple[float, float],
                 occupied: list[Box], nth: int) -> tuple[float, float]:
    """A point on the quadratic curve p0-p1-p2 for ``label`` (its baseline's middle): the first of a sweep of
    positions (from the middle outward, parallel links starting apart) whose box stays inside the picture and
    meets no occupied box; else the one meeting the fewest. The chosen box is added to ``occupied``."""
    if not label:
        return p0
    half, height = len(label) * LABEL_CHAR / 2, LABEL_HEIGHT
    start = (0.5, 0.62, 0.38, 0.7, 0.3)[nth % 5]
    sweep = [start] + [start + d * k for k in range(1, 9) for d in (0.05, -0.05)]
    best: tuple[int, float, float, Box] | None = None
    for t in sweep:
        if not 0.08 <= t <= 0.92:
            continue
        x = (1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * p1[0] + t**2 * p2[0]
        y = (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * p1[1] + t**2 * p2[1]
        x = min(max(x, half + 2), RING_SIZE - half - 2)
        y = min(max(y, height + 2), RING_SIZE - 6)
        box = (x - half, y - height + 4, x + half, y + 5)
        score = _hits(box, occupied)
        if best is None or score < best[0]:
            best = (score, x, y, box)
        if score == 0:
            break
    assert best is not None
    occupied.append(best[3])
    return best[1], best[2]


def ring_svg(ring: Ring) -> str:
    """The ring as a picture: accounts as labelled circles (the beneficiary in the middle, banned ones crossed),
    game lines solid with the win share, hash links dashed (device) or dotted (IP), widely-shared ones faint (and
    said so in their tooltip). A link with an empty label is drawn without text. Two links between the same pair
    are drawn as gentle opposite curves."""
    pos = _positions(ring.nodes)
    parts = [f'<svg class="ring" role="img" viewBox="0 0 {RING_SIZE} {RING_SIZE}" '
             f'xmlns="http://www.w3.org/2000/svg" aria-label="Ring of accounts">'
             "<title>Ring of accounts</title>"]
    pair_count: dict[frozenset[str], int] = {}
    beneficiary = next((n.handle for n in ring.nodes if n.beneficiary), None)
    occupied = _node_boxes(ring.nodes, pos)
    for link in ring.links:
        if link.a not in pos or link.b not in pos:
            continue
        pair = frozenset((link.a, link.b))
        nth = pair_count.get(pair, 0)
        pair_count[pair] = nth + 1
        (x1, y1), (x2, y2) = pos[link.a], pos[link.b]
        if beneficiary not in pair:
            cx, cy = _outer_control(pos[link.a], pos[link.b], nth)
        else:
            # Offset the control point sideways: 0, +1, -1, +2... so parallel links do not overlap.
            bend = (0, 1, -1, 2, -2)[nth % 5] * 64
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            dx, dy = x2 - x1, y2 - y1
            length = math.hypot(dx, dy) or 1.0
            cx, cy = mx - dy / length * bend, my + dx / length * bend
        classes = f"link {link.kind}" + (" widely-shared" if link.widely_shared else "")
        label = link.label
        tip = label + (" (widely shared: many accounts use it)" if link.widely_shared else "")
        # Each label at the first point along its curve whose box is free (the middle first, then outward), so it
        # sits on no node, no node's facts and no other label, and inside the picture.
        lx, ly = _place_label(label, (x1, y1), (cx, cy), (x2, y2), occupied, nth)
        parts.append(
            f'<g class="{_attr(classes)}"><path d="M{_num(x1)},{_num(y1)} Q{_num(cx)},{_num(cy)} '
            f'{_num(x2)},{_num(y2)}"/>'
            + (f'<text x="{_num(lx)}" y="{_num(ly)}" text-anchor="middle">{_text(label)}</text>' if label else "")
            + f"<title>{_text(f'{link.a} – {link.b}: {tip}')}</title></g>")
    for node in ring.nodes:
        nx, ny = pos[node.handle]
        classes = "node" + (" beneficiary" if node.beneficiary else " feeder") + (" banned" if node.banned else "")
        radius = _node_radius(node)
        parts.append(f'<g class="{classes}" data-handle="{_attr(node.handle)}">'
                     f'<circle cx="{_num(nx)}" cy="{_num(ny)}" r="{radius}"/>')
        if node.banned:
            r = radius * 0.7
            parts.append(f'<path class="ban" d="M{_num(nx - r)},{_num(ny - r)} L{_num(nx + r)},{_num(ny + r)} '
                         f'M{_num(nx + r)},{_num(ny - r)} L{_num(nx - r)},{_num(ny + r)}"/>')
        # A handle wider than its circle is squeezed to fit (7.2 user units a character at 13px is a safe upper
        # bound for sans-serif): a name never spills out of its circle nor is cut.
        room = 2 * radius - 8
        fit = (f' textLength="{room}" lengthAdjust="spacingAndGlyphs"' if len(node.handle) * 7.2 > room else "")
        parts.append(f'<text class="handle" x="{_num(nx)}" y="{_num(ny + 4)}" text-anchor="middle"{fit}>'
                     f"{_text(node.handle)}</text>")
        for i, line in enumerate(node.lines):
            parts.append(f'<text class="fact" x="{_num(nx)}" y="{_num(ny + radius + 14 + 13 * i)}" '
                         f'text-anchor="middle">{_text(line)}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)
