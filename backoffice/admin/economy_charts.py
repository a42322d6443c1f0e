"""The rating economy's two pictures (docs/ratings.md, "Where rating points come from"), server-side SVG like
``charts``: the active players' mean and median per day, and the points each source created (bars up) and destroyed
(bars down) per day. Pure: every interpolated value is a number formatted here or text through ``charts._text``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from backoffice.admin.charts import HEIGHT, PAD_BOTTOM, PAD_LEFT, PAD_RIGHT, PAD_TOP, WIDTH, _attr, _nice_ticks, _num
from backoffice.admin.charts import _text as text

Scale = Callable[[float], float]


@dataclass(frozen=True)
class EconomyPoint:
    """One day as the plots need it: the population (None without a snapshot) and each source's two sums."""

    day: date
    mean: float | None
    median: float | None
    created: dict[str, float]
    destroyed: dict[str, float]


def _frame(kind: str, label: str, title: str) -> str:
    return (
        f'<svg class="economy-plot {kind}" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'xmlns="http://www.w3.org/2000/svg" aria-label="{_attr(label)}" data-title="{_attr(title)}">'
        f"<title>{text(label)}</title>"
    )


def _axes(lo: float, hi: float, y: Scale, days: Sequence[date]) -> list[str]:
    parts = [
        f'<line class="axis" x1="{PAD_LEFT}" y1="{HEIGHT - PAD_BOTTOM}" x2="{WIDTH - PAD_RIGHT}" '
        f'y2="{HEIGHT - PAD_BOTTOM}"/>'
    ]
    for tick in _nice_ticks(lo, hi):
        ty = _num(y(tick))
        parts.append(
            f'<line class="grid" x1="{PAD_LEFT}" y1="{ty}" x2="{WIDTH - PAD_RIGHT}" y2="{ty}"/>'
            f'<text class="tick" x="{PAD_LEFT - 6}" y="{ty}" text-anchor="end" '
            f'dominant-baseline="middle">{tick:g}</text>'
        )
    parts.append(
        f'<text class="tick" x="{PAD_LEFT}" y="{HEIGHT - 10}">{text(days[0].isoformat())}</text>'
        f'<text class="tick" x="{WIDTH - PAD_RIGHT}" y="{HEIGHT - 10}" text-anchor="end">'
        f"{text(days[-1].isoformat())}</text>"
    )
    return parts


def _scale(lo: float, hi: float) -> Scale:
    span = (hi - lo) or 1.0
    return lambda v: HEIGHT - PAD_BOTTOM - (v - lo) / span * (HEIGHT - PAD_BOTTOM - PAD_TOP)


def _x(count: int) -> tuple[Scale, float]:
    step = (WIDTH - PAD_LEFT - PAD_RIGHT) / max(count, 1)
    return (lambda i: PAD_LEFT + step * (i + 0.5)), step


def population_svg(title: str, points: Sequence[EconomyPoint]) -> str:
    """Mean (dashed) and median (solid) Elo of the active players, a dot per day with a snapshot."""
    head = _frame("population", f"Active players' mean and median Elo in {title}", title)
    values = [v for p in points for v in (p.mean, p.median) if v is not None]
    if not values:
        return head + (
            f'<text x="{WIDTH / 2:.1f}" y="{HEIGHT / 2:.1f}" text-anchor="middle" class="empty">'
            "No population snapshot in this period.</text></svg>"
        )
    margin = max((max(values) - min(values)) * 0.1, 5.0)
    lo, hi = min(values) - margin, max(values) + margin
    y = _scale(lo, hi)
    x, _ = _x(len(points))
    parts = [head, *_axes(lo, hi, y, [p.day for p in points])]
    for name in ("mean", "median"):
        coords = [(x(i), y(getattr(p, name))) for i, p in enumerate(points) if getattr(p, name) is not None]
        path = " ".join(f"{_num(cx)},{_num(cy)}" for cx, cy in coords)
        parts.append(f'<polyline class="line {name}" points="{path}"/>')
        parts.extend(f'<circle class="dot {name}" cx="{_num(cx)}" cy="{_num(cy)}" r="2.5"/>' for cx, cy in coords)
    return "".join(parts) + "</svg>"


def flows_svg(title: str, points: Sequence[EconomyPoint], sources: Sequence[str]) -> str:
    """Per day, each source's created points stacked up from zero and its destroyed points stacked down; a bar
    carries its source and amount in a ``<title>`` (the tooltip) and a ``data-source``."""
    head = _frame("flows", f"Rating points created and destroyed per day in {title}", title)
    ups = [sum(p.created.values()) for p in points]
    downs = [sum(p.destroyed.values()) for p in points]
    if not any(ups) and not any(downs):
        return head + (
            f'<text x="{WIDTH / 2:.1f}" y="{HEIGHT / 2:.1f}" text-anchor="middle" class="empty">'
            "No rating points moved in this period.</text></svg>"
        )
    lo, hi = min([*downs, 0.0]), max([*ups, 0.0])
    y = _scale(lo, hi)
    x, step = _x(len(points))
    width = max(step * 0.7, 1.0)
    parts = [head, *_axes(lo, hi, y, [p.day for p in points])]
    parts.append(
        f'<line class="zero" x1="{PAD_LEFT}" y1="{_num(y(0.0))}" x2="{WIDTH - PAD_RIGHT}" y2="{_num(y(0.0))}"/>'
    )
    for i, point in enumerate(points):
        left = _num(x(i) - width / 2)
        for by_source in (point.created, point.destroyed):
            base = 0.0
            for source in sources:
                amount = by_source.get(source, 0.0)
                if not amount:
                    continue
                top, bottom = (base + amount, base) if amount > 0 else (base, base + amount)
                parts.append(
                    f'<rect class="bar source-{_attr(source)}" data-source="{_attr(source)}" x="{left}" '
                    f'y="{_num(y(top))}" width="{_num(width)}" height="{_num(y(bottom) - y(top))}">'
                    f"<title>{text(point.day.isoformat())} {text(source)}: {amount:+.2f}</title></rect>"
                )
                base += amount
    return "".join(parts) + "</svg>"
