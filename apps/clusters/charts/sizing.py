"""Charts of a sizing result as accessible SVG, drawn on the server: pictures people would
rather look at than read.

Plain Python, no Django: each function returns an SVG document fragment as text, to be placed in
a page as it is (the view marks it safe; every text in it is escaped here). Each chart is an
`<svg role="img">` with a `<title>` and a `<desc>` that says in words what the picture shows, and
every bar or rack slot carries its label and value as visible `<text>`, so a screen reader, a
printout and a test that parses the SVG all read the same figures. No inline `style` attribute:
the Content-Security-Policy refuses them; colours are presentation attributes and classes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

SVG_NS = "http://www.w3.org/2000/svg"

# Colour-blind-safe (Okabe–Ito), dark enough for white text where text sits on them.
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7f7f00", "#555555")
FONT = 'font-family="system-ui, -apple-system, Segoe UI, sans-serif"'

_ids = itertools.count(1)


def _id(prefix: str) -> str:
    # Unique within a page that shows several charts (title / desc are referenced by id).
    return f"{prefix}-{next(_ids)}"


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _fit(text: str, limit: int) -> str:
    """A label cut to what fits its box (the full text stays in the piece's <title> and desc)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def number(value: float | int, digits: int = 3) -> str:
    """A figure as people read it: 1,024 · 652.8 · 0.745 · 22.15 (at most `digits` significant
    decimals past the integer part, trailing zeros dropped)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    magnitude = abs(float(value))
    if magnitude >= 100:
        places = 1
    elif magnitude >= 1:
        places = 2
    else:
        # Small numbers keep `digits` significant figures (0.0175, 0.000357).
        places = digits - 1 - math.floor(math.log10(magnitude)) if magnitude else 0
    text = f"{float(value):,.{max(places, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _unit(value: float, unit: str, unit_one: str | None) -> str:
    return unit_one if unit_one is not None and value == 1 else unit


@dataclass(frozen=True)
class Bar:
    label: str
    value: float


def bar_chart(
    bars: Iterable[Bar],
    *,
    title: str,
    unit: str,
    unit_one: str | None = None,
    desc: str = "",
    width: int = 640,
    css_class: str = "chart bar-chart",
) -> str:
    """A horizontal bar chart: one row per bar, its label at the left, its value at the bar's end
    (with `unit`, or `unit_one` for a value of exactly 1: "1 switch").

    Bars keep the order given; the scale runs from 0 to the largest value. An empty or all-zero
    chart still draws (its desc says there is nothing to show) rather than dividing by zero."""
    bars = [bar for bar in bars]
    row, gap, top, label_width = 26, 8, 8, min(240, width * 2 // 5)
    value_width = 110
    plot = width - label_width - value_width
    height = top * 2 + max(len(bars), 1) * (row + gap)
    largest = max((bar.value for bar in bars), default=0) or 0
    title_id, desc_id = _id("chart-title"), _id("chart-desc")
    if not desc:
        listed = "; ".join(
            f"{bar.label}: {number(bar.value)} {_unit(bar.value, unit, unit_one)}" for bar in bars
        )
        desc = f"{title}. {listed}." if bars else f"{title}: nothing to show."
    parts = [
        f'<svg xmlns="{SVG_NS}" class="{_e(css_class)}" role="img" viewBox="0 0 {width} {height}" '
        f'width="100%" preserveAspectRatio="xMinYMin meet" aria-labelledby="{title_id} {desc_id}" {FONT} '
        f'font-size="13">',
        f'<title id="{title_id}">{_e(title)}</title>',
        f'<desc id="{desc_id}">{_e(desc)}</desc>',
        # The axis the bars grow from.
        f'<line x1="{label_width}" y1="{top}" x2="{label_width}" y2="{height - top}" stroke="#888" '
        'stroke-width="1"/>',
    ]
    for index, bar in enumerate(bars):
        y = top + index * (row + gap)
        length = 0.0 if largest <= 0 else max(bar.value, 0) / largest * plot
        colour = PALETTE[index % len(PALETTE)]
        shown = f"{number(bar.value)} {_unit(bar.value, unit, unit_one)}".strip()
        parts.append(
            f'<g class="bar" data-label="{_e(bar.label)}" data-value="{_e(bar.value)}">'
            f'<text class="bar-label" x="{label_width - 8}" y="{y + row / 2 + 4:.1f}" text-anchor="end" '
            f'fill="#222">{_e(bar.label)}</text>'
            f'<rect x="{label_width}" y="{y}" width="{length:.2f}" height="{row}" fill="{colour}" rx="2">'
            f"<title>{_e(bar.label)}: {_e(shown)}</title></rect>"
            f'<text class="bar-value" x="{label_width + length + 6:.2f}" y="{y + row / 2 + 4:.1f}" '
            f'fill="#222">{_e(shown)}</text>'
            "</g>"
        )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Slot:
    """`count` pieces of one kind in a rack, each `rack_units` high (0: mounted at the side, as a
    0U PDU)."""

    label: str
    rack_units: int
    count: int


def rack_elevation(
    slots: Sequence[Slot],
    *,
    rack_units: int,
    count: int,
    kind: str,
    it_kw: float | None = None,
    unit_px: int = 9,
) -> str:
    """One rack drawn to scale: its units numbered from the bottom, each piece a box as high as
    its rack units with its label, the 0U pieces (PDUs) as strips at the side, and how many racks
    are laid out alike ("× 10 racks").

    Pieces fill from the bottom up in the order given (the heaviest, the systems, come first in
    the engine's rack types). A rack whose pieces need more units than it has is drawn as tall as
    they need, with the overflow marked, never cut off."""
    mounted = [slot for slot in slots if slot.rack_units > 0 and slot.count > 0]
    side = [slot for slot in slots if slot.rack_units <= 0 and slot.count > 0]
    used = sum(slot.rack_units * slot.count for slot in mounted)
    height_units = max(rack_units, used, 1)
    frame_x, frame_w, top, caption = 34, 190, 30, 44
    side_w = 14 if side else 0
    width = frame_x + frame_w + side_w * 2 + 16
    height = top + height_units * unit_px + caption
    title_id, desc_id = _id("rack-title"), _id("rack-desc")
    # In-row CDUs stand in the row as cabinets of their own: drawn like a rack, named for what they are.
    heading, noun = ("CDU cabinet", "cabinet") if kind == "cooling" else (f"{kind.capitalize()} rack", "rack")
    racks = f"× {count:,} {noun}{'s' if count != 1 else ''}"
    title = f"{heading} {racks}"
    pieces = "; ".join(
        f"{slot.count} × {slot.label}" + (f" ({slot.rack_units} U each)" if slot.rack_units else " (0 U)")
        for slot in [*mounted, *side]
    )
    load = f", {number(it_kw)} kW IT load per rack" if it_kw is not None else ""
    desc = f"{title}: {used} of {rack_units} U used{load}. {pieces}."
    parts = [
        f'<svg xmlns="{SVG_NS}" class="chart rack-elevation" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" aria-labelledby="{title_id} {desc_id}" {FONT} font-size="11" '
        f'data-kind="{_e(kind)}" data-count="{count}" data-rack-units="{rack_units}" data-used="{used}">',
        f'<title id="{title_id}">{_e(title)}</title>',
        f'<desc id="{desc_id}">{_e(desc)}</desc>',
        f'<text class="rack-title" x="{frame_x}" y="18" font-size="13" font-weight="bold" fill="#222">'
        f"{_e(heading)}</text>",
        f'<text class="rack-count" x="{frame_x + frame_w + side_w * 2}" y="18" font-size="13" '
        f'font-weight="bold" text-anchor="end" fill="#0072b2">{_e(racks)}</text>',
        f'<rect class="rack-frame" x="{frame_x}" y="{top}" width="{frame_w}" '
        f'height="{height_units * unit_px}" fill="#f4f4f4" stroke="#333" stroke-width="2"/>',
    ]
    # Unit numbers every 4 U and at the top, counted from the bottom as racks are.
    for unit in range(1, height_units + 1):
        if unit == 1 or unit % 4 == 0 or unit == height_units:
            y = top + (height_units - unit + 1) * unit_px - 1
            parts.append(
                f'<text class="rack-unit" x="{frame_x - 4}" y="{y}" text-anchor="end" font-size="8" '
                f'fill="#666">{unit}</text>'
            )
    if used > rack_units:
        y = top + (height_units - rack_units) * unit_px
        parts.append(
            f'<line class="rack-overflow" x1="{frame_x - 2}" y1="{y}" x2="{frame_x + frame_w + 2}" y2="{y}" '
            'stroke="#d55e00" stroke-width="2" stroke-dasharray="4 3"/>'
        )
    position = 0  # units filled so far, from the bottom
    for index, slot in enumerate(mounted):
        colour = PALETTE[index % len(PALETTE)]
        for _ in range(slot.count):
            box_h = slot.rack_units * unit_px
            y = top + (height_units - position - slot.rack_units) * unit_px
            name = _fit(slot.label, 28) if slot.rack_units * unit_px >= 10 else ""
            parts.append(
                f'<g class="rack-slot" data-label="{_e(slot.label)}" data-rack-units="{slot.rack_units}" '
                f'data-position="{position + 1}">'
                f'<rect x="{frame_x + 2}" y="{y + 0.5}" width="{frame_w - 4}" height="{box_h - 1}" '
                f'fill="{colour}" stroke="#fff" stroke-width="1">'
                f"<title>{_e(slot.label)}, U{position + 1}–U{position + slot.rack_units}</title></rect>"
                + (
                    f'<text class="slot-label" x="{frame_x + frame_w / 2}" y="{y + box_h / 2 + 4:.1f}" '
                    f'text-anchor="middle" fill="#fff">{_e(name)}</text>'
                    if name
                    else ""
                )
                + "</g>"
            )
            position += slot.rack_units
        if slot.rack_units * unit_px < 10:
            # Pieces too thin to carry their own name (1U switches) are named once for the run
            # of them, just above it on the empty rack (or inside it when the rack is full).
            group_top = top + (height_units - position) * unit_px
            room = index == len(mounted) - 1 and group_top - top >= 12  # nothing drawn above it
            name = _fit(f"{slot.count} × {slot.label}", 30)
            parts.append(
                f'<text class="slot-label group-label" x="{frame_x + frame_w / 2}" '
                f'y="{group_top - 3 if room else group_top + 8}" text-anchor="middle" font-size="10" '
                f'fill="{"#222" if room else "#fff"}">{_e(name)}</text>'
            )
    # 0U pieces (PDUs) stand at the side of the rack: two strips stand for however many there are,
    # the caption below says how many.
    if side:
        for strip in range(2):
            parts.append(
                f'<rect class="rack-side" x="{frame_x + frame_w + 2 + strip * side_w}" y="{top + 4}" '
                f'width="{side_w - 3}" height="{height_units * unit_px - 8}" fill="#999" rx="2">'
                f"<title>{_e(side[0].label if len(side) == 1 else 'PDUs')} (0 U)</title></rect>"
            )
    side_text = "; ".join(f"{slot.count} × {slot.label} at the side" for slot in side)
    parts.append(
        f'<text class="rack-used" x="4" font-size="10" y="{top + height_units * unit_px + 16}" fill="#222">'
        f"{used} of {rack_units} U used{_e(load)}</text>"
    )
    if side_text:
        parts.append(
            f'<text class="rack-side-label" x="4" font-size="10" y="{top + height_units * unit_px + 32}" '
            f'fill="#444">{_e(side_text)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
