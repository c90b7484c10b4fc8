"""The own-or-rent chart: cumulative cost of owning against renting, month by month,
the break-even month marked, as accessible SVG drawn on the server.

Plain Python, no Django: `own_or_rent_chart(result)` returns an `<svg role="img">` with a `<title>`
and a `<desc>` that says in words what the lines show (the totals and the break-even), axis labels
as visible text, and a `<title>` on each end point. Colours are presentation attributes (the
Content-Security-Policy refuses inline styles); every text is escaped here.
"""

from __future__ import annotations

import itertools
from decimal import Decimal
from html import escape

from ..engines.economics import OwnOrRent

SVG_NS = "http://www.w3.org/2000/svg"
FONT = 'font-family="system-ui, -apple-system, Segoe UI, sans-serif"'
OWN_COLOUR = "#0072b2"  # Okabe–Ito blue
RENT_COLOUR = "#d55e00"  # Okabe–Ito vermillion
_ids = itertools.count(1)


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _money(value: Decimal) -> str:
    return f"{value:,.0f}"


def _short(value: Decimal) -> str:
    """An axis label: 12.5M, 840k, 950."""
    number = abs(value)
    for size, suffix in ((Decimal("1e9"), "B"), (Decimal("1e6"), "M"), (Decimal("1e3"), "k")):
        if number >= size:
            text = f"{value / size:.1f}".rstrip("0").rstrip(".")
            return f"{text}{suffix}"
    return f"{value:,.0f}"


def _nice_top(value: Decimal) -> Decimal:
    """The smallest 1, 2, 2.5 or 5 × 10^n at or above `value` (the y axis' top)."""
    if value <= 0:
        return Decimal("1")
    exponent = value.adjusted()
    for step in (Decimal("1"), Decimal("2"), Decimal("2.5"), Decimal("5"), Decimal("10")):
        top = step * Decimal(10) ** exponent
        if top >= value:
            return top
    return Decimal(10) ** (exponent + 1)


def own_or_rent_chart(result: OwnOrRent, *, width: int = 720, height: int = 360) -> str:
    """Two lines, own and rent, cumulative from month 0 to N; a vertical mark at the break-even."""
    left, right, top, bottom = 78, 20, 16, 58
    plot_w, plot_h = width - left - right, height - top - bottom
    cur = result.currency
    points = result.points
    y_top = _nice_top(max(max(p.own for p in points), max(p.rent for p in points)))
    months = max(result.months, 1)

    def x(month: int) -> float:
        return left + month / months * plot_w

    def y(value: Decimal) -> float:
        return top + plot_h - float(value / y_top) * plot_h

    title_id, desc_id = f"own-rent-title-{next(_ids)}", f"own-rent-desc-{next(_ids)}"
    title = f"Own or rent: cumulative cost over {result.months} months ({cur})"
    desc = (
        f"Owning starts at {_money(result.hardware)} {cur} for the hardware and reaches "
        f"{_money(result.own_total)} {cur} by month {result.months}; renting reaches "
        f"{_money(result.rent_total)} {cur}. {result.verdict}"
    )
    parts = [
        f'<svg xmlns="{SVG_NS}" class="chart own-rent-chart" role="img" viewBox="0 0 {width} {height}" '
        f'width="100%" preserveAspectRatio="xMinYMin meet" aria-labelledby="{title_id} {desc_id}" {FONT} '
        'font-size="12">',
        f'<title id="{title_id}">{_e(title)}</title>',
        f'<desc id="{desc_id}">{_e(desc)}</desc>',
    ]
    # Grid and y labels: 0, ¼, ½, ¾ and the top.
    for index in range(5):
        value = y_top * index / 4
        gy = y(value)
        parts.append(
            f'<line x1="{left}" y1="{gy:.1f}" x2="{width - right}" y2="{gy:.1f}" stroke="#ddd" '
            'stroke-width="1"/>'
            f'<text class="y-label" x="{left - 6}" y="{gy + 4:.1f}" text-anchor="end" fill="#333">'
            f"{_e(_short(value))}</text>"
        )
    # x labels: about six ticks, whole months.
    step = max(1, round(months / 6))
    for month in range(0, months + 1, step):
        parts.append(
            f'<text class="x-label" x="{x(month):.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
            f'fill="#333">{month}</text>'
        )
    parts.append(
        f'<text class="axis-title" x="{left + plot_w / 2:.1f}" y="{height - 22}" text-anchor="middle" '
        f'fill="#222">Month</text>'
        f'<text class="axis-title" x="14" y="{top + plot_h / 2:.1f}" text-anchor="middle" fill="#222" '
        f'transform="rotate(-90 14 {top + plot_h / 2:.1f})">Cumulative cost ({_e(cur)})</text>'
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#888" stroke-width="1"/>'
        f'<line x1="{left}" y1="{top + plot_h}" x2="{width - right}" y2="{top + plot_h}" stroke="#888" '
        'stroke-width="1"/>'
    )
    if result.break_even_month is not None:
        month = result.break_even_month
        bx = x(month)
        parts.append(
            f'<g class="break-even" data-month="{month}">'
            f'<line x1="{bx:.1f}" y1="{top}" x2="{bx:.1f}" y2="{top + plot_h}" stroke="#009e73" '
            'stroke-width="2" stroke-dasharray="6 4"/>'
            f'<text x="{min(bx + 6, width - right - 4):.1f}" y="{top + 14}" '
            f'text-anchor="{"start" if bx + 120 < width else "end"}" fill="#00623f">'
            f"Break-even: month {month}</text></g>"
        )
    for name, colour, values, dash in (
        ("own", OWN_COLOUR, [p.own for p in points], ""),
        ("rent", RENT_COLOUR, [p.rent for p in points], ' stroke-dasharray="2 0"'),
    ):
        path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        label = "Own" if name == "own" else "Rent"
        parts.append(
            f'<g class="series series-{name}" data-total="{_e(values[-1])}">'
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5"{dash}>'
            f"<title>{label}: {_e(_money(values[-1]))} {_e(cur)} by month {result.months}</title>"
            "</polyline></g>"
        )
    # Legend, below the axis.
    ly = height - 8
    parts.append(
        f'<g class="legend"><rect x="{left}" y="{ly - 9}" width="14" height="4" fill="{OWN_COLOUR}"/>'
        f'<text x="{left + 20}" y="{ly}" fill="#222">Own: hardware, power, support</text>'
        f'<rect x="{left + 250}" y="{ly - 9}" width="14" height="4" fill="{RENT_COLOUR}"/>'
        f'<text x="{left + 270}" y="{ly}" fill="#222">Rent: the same GPU-hours</text></g>'
    )
    parts.append("</svg>")
    return "".join(parts)
