"""The panel's pictures, drawn on the server as inline SVG: a rating history per title here, the ring of accounts in
``backoffice/admin/ring_chart.py``.

Server-side SVG rather than a JavaScript chart library: nothing to vendor or keep patched, nothing from a CDN, the
picture is in the page the moment it loads (screenshots and printouts included), and every piece of text in it
goes through one escaping function here, so a hostile string cannot become markup. Moderators read shapes, not
axes to the decimal, so a plain polyline with marked resets and voids is all the plot needs.

Pure: no Django. The admin marks the returned strings safe because every interpolated value below is either a
number formatted here or a string passed through ``svg_text``/``svg_attr``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape

# The plot's canvas (user units); the SVG scales to the page width through its viewBox.
WIDTH = 640
HEIGHT = 220
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 52, 16, 18, 34


def svg_text(value: object) -> str:
    """Text content: every character that could open markup is an entity."""
    return escape(str(value), quote=True)


def svg_attr(value: object) -> str:
    return escape(str(value), quote=True)


def svg_num(value: float) -> str:
    """Coordinates with one decimal: enough for a 640-unit canvas, and stable for tests."""
    return f"{value:.1f}"


_text, _attr, _num = svg_text, svg_attr, svg_num


@dataclass(frozen=True)
class HistoryPoint:
    """One entry of a title's history as the plot needs it: when, the rating after it, and what it was."""

    at: datetime
    after: float
    kind: str  # "game" or "reset"
    before: float
    game_id: int | None = None
    table_id: str = ""  # the game's name everywhere in the panel
    flagged: bool = False  # a game a flag cites: marked on the plot


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


# A label's box, estimated in user units at the plot's 10-unit font (panel.css): a character at most 6.6 wide (bold
# digits and "×" included), 8 above the baseline and 3 below. Generous on purpose: an estimate that errs wide can
# only drop a label that would have fitted, never let two touch (the browser test measures the drawn boxes).
CHAR_WIDTH, ASCENT, DESCENT, GAP = 6.6, 8.0, 3.0, 2.0


class _Labels:
    """Every text label of a plot, placed in order of importance (axis ticks, dates, R0, resets, voids): a label is
    drawn only where its box stays on the canvas (moved inwards at an edge) and touches no label placed before it;
    otherwise it is left out, and its mark and tooltip still say what it was."""

    def __init__(self) -> None:
        self.boxes: list[tuple[float, float, float, float]] = []

    def place(self, x: float, y: float, text: str, anchor: str = "start", middle: bool = False, *others: str) -> str:
        """The ``<text>`` for ``text`` at (``x``, ``y``), its attributes included, or "" when it does not fit.
        ``middle``: ``y`` is the label's vertical centre (dominant-baseline middle), not its baseline. ``others``:
        the anchors tried in turn when the first one's box touches a label (a mark's label beside it rather than
        centred on it)."""
        width = len(text) * CHAR_WIDTH
        top, bottom = (y - 5.5, y + 5.5) if middle else (y - ASCENT, y + DESCENT)
        for tried in (anchor, *others):
            left = {"start": x, "middle": x - width / 2, "end": x - width}[tried]
            left = min(max(left, 0.0), WIDTH - width)  # moved inwards rather than cut at the canvas's edge
            box = (left, top, left + width, bottom)
            if any(
                box[0] < b[2] + GAP and b[0] < box[2] + GAP and box[1] < b[3] + GAP and b[1] < box[3] + GAP
                for b in self.boxes
            ):
                continue
            self.boxes.append(box)
            at = {"start": left, "middle": left + width / 2, "end": left + width}[tried]
            baseline = ' dominant-baseline="middle"' if middle else ""
            return f'x="{_num(at)}" y="{_num(y)}" text-anchor="{tried}"{baseline}>{_text(text)}'
        return ""


def history_svg(plot: HistoryPlot, *, dots: bool = True) -> str:
    """The title's rating over time (the x axis is the date: a quiet month reads as one), resets as red dashed
    verticals where the line drops to R0, voided games as grey crosses on the axis at their date, games a flag
    cites ringed in orange, each game's dot a link to its page. The y range always holds R0, drawn dashed, so a
    reset reads as a return to it. ``dots`` off leaves only the line (long histories)."""
    points = list(plot.points)
    label = f"Rating history of {plot.title}"
    head = (
        f'<svg class="rating-plot" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'xmlns="http://www.w3.org/2000/svg" aria-label="{_attr(label)}" data-title="{_attr(plot.title)}">'
        f"<title>{_text(label)}</title>"
    )
    if not points and not plot.voids:
        return head + (
            f'<text x="{WIDTH / 2:.1f}" y="{HEIGHT / 2:.1f}" text-anchor="middle" class="empty">'
            "No rated games yet.</text></svg>"
        )
    values = [plot.initial] + [p.after for p in points] + [p.before for p in points]
    lo, hi = min(values), max(values)
    margin = max((hi - lo) * 0.08, 5.0)
    lo, hi = lo - margin, hi + margin
    times = [p.at for p in points] + list(plot.voids)
    t0 = min(times)
    x_at = _scale(0.0, (max(times) - t0).total_seconds(), PAD_LEFT, WIDTH - PAD_RIGHT)

    def x(at: datetime) -> float:
        return x_at((at - t0).total_seconds())

    y = _scale(lo, hi, HEIGHT - PAD_BOTTOM, PAD_TOP)
    base = HEIGHT - PAD_BOTTOM
    parts = [head]
    labels = _Labels()
    parts.append(f'<line class="axis" x1="{PAD_LEFT}" y1="{base}" x2="{WIDTH - PAD_RIGHT}" y2="{base}"/>')
    for tick in _nice_ticks(lo, hi):
        ty = y(tick)
        parts.append(f'<line class="grid" x1="{PAD_LEFT}" y1="{_num(ty)}" x2="{WIDTH - PAD_RIGHT}" y2="{_num(ty)}"/>')
        text = labels.place(PAD_LEFT - 6, ty, f"{tick:g}", "end", middle=True)
        parts.append(f'<text class="tick" {text}</text>' if text else "")
    for at_x, words, anchor in (
        (PAD_LEFT, min(times).strftime("%Y-%m-%d"), "start"),
        (WIDTH / 2, f"{len(points)} {'entry' if len(points) == 1 else 'entries'}", "middle"),
        (WIDTH - PAD_RIGHT, max(times).strftime("%Y-%m-%d"), "end"),
    ):
        text = labels.place(at_x, HEIGHT - 10, words, anchor)
        parts.append(f'<text class="tick" {text}</text>' if text else "")
    r0 = y(plot.initial)
    parts.append(f'<line class="initial" x1="{PAD_LEFT}" y1="{_num(r0)}" x2="{WIDTH - PAD_RIGHT}" y2="{_num(r0)}"/>')
    text = labels.place(WIDTH - PAD_RIGHT, r0 - 3, "R0", "end")
    parts.append(f'<text class="tick initial-label" {text}</text>' if text else "")
    if points:
        coords = [(x(points[0].at), y(points[0].before))]
        for p in points:
            if p.kind == "reset":  # straight down (or up) to R0 at the reset's time
                coords.append((x(p.at), y(p.before)))
            coords.append((x(p.at), y(p.after)))
        path = " ".join(f"{_num(cx)},{_num(cy)}" for cx, cy in coords)
        parts.append(f'<polyline class="line" points="{path}"/>')
        for p in points:
            px, py = _num(x(p.at)), _num(y(p.after))
            if p.kind == "reset":
                text = labels.place(x(p.at), PAD_TOP - 4, "reset", "middle", False, "start", "end")
                parts.append(
                    f'<g class="reset"><line x1="{px}" y1="{PAD_TOP}" x2="{px}" y2="{base}"/>'
                    + (f"<text {text}</text>" if text else "")
                    + f"<title>{_text(f'reset on {p.at:%Y-%m-%d %H:%M}: {p.before:.2f} → {p.after:.2f}')}</title>"
                    "</g>"
                )
            elif dots or p.flagged:
                tip = (
                    f"{'flagged ' if p.flagged else ''}game {p.table_id or p.game_id} ({p.at:%Y-%m-%d}): "
                    f"{p.before:.2f} → {p.after:.2f} ({p.after - p.before:+.2f})"
                )
                dot = (
                    f'<circle class="dot{" flagged" if p.flagged else ""}" cx="{px}" cy="{py}" '
                    f'r="{4 if p.flagged else 2.5}"><title>{_text(tip)}</title></circle>'
                )
                parts.append(f'<a href="/admin/arena/game/{int(p.game_id)}/change/">{dot}</a>' if p.game_id else dot)
    parts.extend(_void_marks(plot.voids, x, base, labels))
    parts.append("</svg>")
    return "".join(parts)


def _void_marks(voids: Sequence[datetime], x: Callable[[datetime], float], base: float, labels: _Labels) -> list[str]:
    """The voided games' marks on the axis at ``base``, their labels placed among the plot's others."""
    marks: list[str] = []
    # Voids that fall within a few pixels (a ring's games of one evening) are one mark, "void ×N", and a
    # label is dropped where it would touch another label (its mark and tooltip stay): 54 voids over 7 slots
    # read as 7 marks, not a pile of overlapping words.
    grouped: dict[float, list[datetime]] = {}
    for at in sorted(voids):  # voids within 6 px of the group's first are one mark
        key = next((k for k in grouped if abs(k - x(at)) < 6), x(at))
        grouped.setdefault(key, []).append(at)
    for vx, times_in_slot in sorted(grouped.items()):
        word = "void" if len(times_in_slot) == 1 else f"void ×{len(times_in_slot)}"
        text = labels.place(vx, base - 8, word, "middle", False, "start", "end")
        label = f"<text {text}</text>" if text else ""
        tip = ", ".join(at.strftime("%Y-%m-%d %H:%M") for at in sorted(times_in_slot)[:10])
        tip += f" and {len(times_in_slot) - 10} more" if len(times_in_slot) > 10 else ""
        marks.append(
            f'<g class="void" data-count="{len(times_in_slot)}"><path d="M{_num(vx - 4)},{_num(base - 4)} '
            f'l8,8 m0,-8 l-8,8"/>{label}'
            f"<title>{_text(('voided game of ' if len(times_in_slot) == 1 else 'voided games of ') + tip)}</title>"
            "</g>"
        )
    return marks
