"""Bills of materials of a cluster design: a draft version made from a sizing run, a line's
quantity changed (audited, with why), a line's lead time (the shipment plan's ready date),
issuing, and the lines as CSV rows."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.catalog.models import Part
from apps.core.audit import record_transition

from ..models import BillOfMaterials, BomLine, BomStatus, ClusterDesign, SizingRun
from .designs import next_number, run_result


@transaction.atomic
def bom_from_run(*, run: SizingRun, actor=None) -> BillOfMaterials:
    """A new draft version of the design's bill of materials from a successful run: one line per
    role and part, at the engine's quantity."""
    design = ClusterDesign.objects.select_for_update().get(pk=run.design_id)
    run = SizingRun.objects.get(pk=run.pk)
    result = run_result(run)
    quantities: dict[tuple[str, int], tuple[int, str]] = {}
    unknown = []
    for item in result.bom:
        if not str(item.part_key).isdigit():
            unknown.append(str(item.part_key))
            continue
        key = (str(item.role), int(item.part_key))
        quantity, figure = quantities.get(key, (0, item.figure))
        quantities[key] = (quantity + int(item.quantity), figure)
    parts = Part.objects.in_bulk({pk for _, pk in quantities})
    unknown += [str(pk) for _, pk in quantities if pk not in parts]
    if unknown:
        raise ValidationError(
            {"run": f"The result names parts no longer in the catalogue: {', '.join(unknown)}."}
        )
    bom = BillOfMaterials(
        design=design,
        run=run,
        version=next_number(BillOfMaterials, design, "version"),
        created_by=actor if getattr(actor, "pk", None) else None,
    )
    bom.full_clean()
    bom.save()
    for (role, pk), (quantity, figure) in quantities.items():
        if quantity <= 0:
            continue  # the engine lists a role it needed none of (no CDU on an air-cooled design)
        line = BomLine(
            bom=bom,
            part=parts[pk],
            role=role,
            quantity=quantity,
            engine_quantity=quantity,
            figure=figure[:100],
            lead_time_days=part_lead_time(parts[pk]),
        )
        line.full_clean()
        line.save()
    return bom


MAX_LEAD_TIME_DAYS = 730


def part_lead_time(part: Part) -> int | None:
    """The lead time the catalogue gives a part (`attributes.lead_time_days`), if a whole number of
    days from 0 to two years; a new version's line starts from it."""
    value = (part.attributes or {}).get("lead_time_days")
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 4 or int(text) > MAX_LEAD_TIME_DAYS:
        return None
    return int(text)


@transaction.atomic
def bom_line_lead_time_set(*, line: BomLine, lead_time_days: int | None, actor=None) -> BomLine:
    """Set the days from order until the supplier has a line's goods ready (None: ready now). It is
    planning data, not what is ordered, so an issued version's lines take it too (audited)."""
    line = BomLine.objects.select_for_update().get(pk=line.pk)
    if lead_time_days is not None and (
        isinstance(lead_time_days, bool) or not 0 <= int(lead_time_days) <= MAX_LEAD_TIME_DAYS
    ):
        raise ValidationError(
            {"lead_time_days": f"A lead time is a whole number of days from 0 to {MAX_LEAD_TIME_DAYS}."}
        )
    line.lead_time_days = None if lead_time_days is None else int(lead_time_days)
    line.full_clean()
    line.save()
    return line


@transaction.atomic
def bom_line_update(*, line: BomLine, quantity: int, actor=None, note: str = "") -> BomLine:
    """Change a draft line's quantity (audited, with the note saying why). An issued bill of
    materials is fixed: make a new version instead."""
    bom = BillOfMaterials.objects.select_for_update().get(pk=line.bom_id)
    line = BomLine.objects.select_for_update().get(pk=line.pk)
    if bom.status == BomStatus.ISSUED:
        raise ValidationError(
            {"quantity": f"Version {bom.version} is issued: its quantities are fixed; make a new version."}
        )
    if quantity is None or int(quantity) < 0:
        raise ValidationError({"quantity": "A quantity is zero or more."})
    note = (note or "").strip()
    if int(quantity) != line.engine_quantity and not note and not line.note:
        raise ValidationError({"note": "Say why the quantity differs from the sizing's."})
    line.quantity = int(quantity)
    if note:
        line.note = note
    line.full_clean()
    line.save()
    return line


@transaction.atomic
def bom_issue(*, bom: BillOfMaterials, actor=None) -> BillOfMaterials:
    """Issue a draft: from now on its lines do not change."""
    bom = BillOfMaterials.objects.select_for_update().get(pk=bom.pk)
    if bom.status == BomStatus.ISSUED:
        raise ValidationError({"status": f"Version {bom.version} is issued already."})
    if not bom.lines.filter(quantity__gt=0).exists():
        raise ValidationError({"status": "A bill of materials with nothing on it cannot be issued."})
    bom.status = BomStatus.ISSUED
    bom.issued_at = timezone.now()
    bom.issued_by = actor if getattr(actor, "pk", None) else None
    bom.save()
    record_transition(bom, field="status", before=BomStatus.DRAFT, after=BomStatus.ISSUED, actor=actor)
    return bom


def bom_current(design: ClusterDesign) -> BillOfMaterials | None:
    """The design's newest bill of materials."""
    return design.boms.order_by("-version").first()


def bom_csv_rows(bom: BillOfMaterials) -> list[list[Any]]:
    """The lines as rows of plain values, header first (the view writes them as CSV)."""
    rows = [
        ["role", "manufacturer", "part_number", "name", "quantity", "engine_quantity", "unit_value",
         "currency", "line_value", "figure", "note", "lead_time_days"],
    ]  # fmt: skip
    for line in bom.lines.select_related("part__manufacturer").order_by("id"):
        part = line.part
        rows.append(
            [
                line.role,
                part.manufacturer.name,
                part.part_number,
                part.name,
                line.quantity,
                line.engine_quantity,
                part.unit_value,
                part.currency,
                part.unit_value * line.quantity,
                line.figure,
                line.note,
                "" if line.lead_time_days is None else line.lead_time_days,
            ]
        )
    return rows
