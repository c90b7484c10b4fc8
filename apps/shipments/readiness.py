"""What a shipment's trade documents will need, known before any of them is generated.

The document builder refuses a commercial invoice whose Incoterm (a C rule) puts freight and
insurance on it without those charges, or whose CIP/CIF cover is below 110 % of the invoice value,
and a packing list without a serial number for each unit of a serialised part. Found only when the
documents were generated, those gaps surfaced after approval, when lines and terms no longer
change. Review, the page, the line API and the builder therefore read them here, once:

- `terms_problems`: the charges and cover the Incoterm calls for. Terms are fixed in draft, so
  submitting for review and approving are refused while one is missing (`review_problems`,
  naming the field).
- `serial_gaps`: serialised lines with fewer serial numbers than units. Serials may still come
  after approval (the warehouse packs picked units into the shipment), so these are flagged, not
  refused: when a line is added (`line_warnings`), when the shipment is submitted and on its page
  (`review_warnings`, naming the lines).

Documents import this module; it imports nothing above shipments.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, F

from .engines.incoterms import CARGO_CLAUSES, EDITION, minimum_cover
from .engines.incoterms import rule as incoterm_rule
from .models import Shipment, ShipmentLine

SERIALS_NEEDED_BY = "The packing list and commercial invoice list one per unit"


@dataclass(frozen=True)
class Gap:
    """Something a document will need: the shipment's field (as the builder and API name it) and
    a sentence saying what to do."""

    field: str
    message: str


def number_runs(numbers, *, listed: int = 10) -> str:
    """Line numbers as runs, "1–1,500, 1,502": a consolidation's need may cover thousands."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = ", ".join(f"{a:,}" if a == b else f"{a:,}–{b:,}" for a, b in runs[:listed])
    return text + (f" and {len(runs) - listed:,} more runs" if len(runs) > listed else "")


def terms_problems(shipment: Shipment, *, goods_value: Decimal | None = None) -> list[Gap]:
    """The charges and cover the Incoterm puts on the invoice: under the C rules the freight charge
    (and for CIP and CIF the insurance premium) must be known, and CIP/CIF cover must reach 110 %
    of the invoice value (goods, freight and premium). `goods_value` is the lines' total when the
    caller has it; otherwise it is read (one query, only when the cover is to be checked)."""
    rule = incoterm_rule(shipment.incoterm)
    code = shipment.incoterm
    problems = []
    if rule.freight_on_invoice and shipment.freight_charge is None:
        problems.append(
            Gap(
                "freight_charge",
                f"Under {code} the invoice value includes the main carriage: enter the freight charge.",
            )
        )
    if rule.insurance_on_invoice and shipment.insurance_charge is None:
        problems.append(
            Gap(
                "insurance_charge",
                f"Under {code} the invoice value includes the cargo insurance: enter the insurance charge.",
            )
        )
    if problems or not rule.insurance_on_invoice or shipment.insurance_value is None:
        return problems
    if goods_value is None:
        rows = ShipmentLine.objects.filter(shipment=shipment).values_list("unit_value", "quantity")
        goods_value = sum((unit_value * quantity for unit_value, quantity in rows), Decimal("0"))
    value = goods_value + shipment.freight_charge + shipment.insurance_charge
    minimum = minimum_cover(value)
    if shipment.insurance_value < minimum:
        currency = shipment.currency
        problems.append(
            Gap(
                "insurance_value",
                f"The insured value ({currency} {shipment.insurance_value:,.2f}) is below 110% of the "
                f"{code} value: insure at least {currency} {minimum:,.2f} ({EDITION}, "
                f"{CARGO_CLAUSES[rule.insurance_cover]}).",
            )
        )
    return problems


def serial_gaps(shipment: Shipment) -> list[tuple[int, int, int]]:
    """(line number, serial numbers, units) of each serialised line with fewer serial numbers than
    units, in line order: one query, whatever the number of lines."""
    return list(
        ShipmentLine.objects.filter(shipment=shipment, part__is_serialised=True)
        .annotate(serial_count=Count("serials"))
        .filter(serial_count__lt=F("quantity"))
        .order_by("line_number")
        .values_list("line_number", "serial_count", "quantity")
    )


def review_problems(shipment: Shipment, *, goods_value: Decimal | None = None) -> list[str]:
    """What refuses review and approval, each sentence ending with the field to correct."""
    return [f"{gap.message} [{gap.field}]" for gap in terms_problems(shipment, goods_value=goods_value)]


def review_warnings(shipment: Shipment, *, listed: int = 10) -> list[str]:
    """What to flag at review: the serialised lines without a serial number for every unit, named
    as runs of line numbers (the first `listed` with their counts), in one sentence."""
    gaps = serial_gaps(shipment)
    if not gaps:
        return []
    numbers = [number for number, _count, _quantity in gaps]
    label = "Line" if len(numbers) == 1 else "Lines"
    counts = "; ".join(f"line {number}: {count} of {quantity}" for number, count, quantity in gaps[:listed])
    more = f"; and {len(gaps) - listed:,} more lines" if len(gaps) > listed else ""
    return [
        f"{label} {number_runs(numbers)}: serialised parts without a serial number for every unit "
        f"({counts}{more}). {SERIALS_NEEDED_BY}: add them on the lines, or pack picked units from the "
        "warehouse, before the documents are generated."
    ]


def line_warnings(line: ShipmentLine, serial_count: int) -> list[str]:
    """What to tell whoever adds or reads `line` (with `serial_count` serial numbers): a serialised
    part with fewer serial numbers than units. A warning, never a refusal, in draft."""
    if not line.part.is_serialised or serial_count >= line.quantity:
        return []
    return [
        f"Line {line.line_number}: {line.part.name} is serialised and has {serial_count} of "
        f"{line.quantity} serial numbers. {SERIALS_NEEDED_BY}: add them, or pack picked units from "
        "the warehouse, before the documents are generated."
    ]
