"""Packing a shipment's lines (and their serial numbers) into packages, before booking.

A package's gross weight is never below what the catalogue says its contents weigh (freight is
priced on it: a 12 kg carton holding four 142 kg servers would be flown for the price of 12 kg), and
`package_suggestion` offers the weight and size a packer starts from: the contents' catalogue
weight plus the packaging's tare, and a box around the largest part.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, Sum

from ..models import LineSerial, Package, PackageItem, PackageType, Shipment, ShipmentLine, ShipmentStatus
from .base import validated_save

# What the packaging itself weighs, suggested on top of the contents (kg); the packer corrects it.
PACKAGE_TARE_KG = {
    PackageType.CARTON: Decimal("2"),
    PackageType.PALLET: Decimal("25"),
    PackageType.CRATE: Decimal("40"),
    PackageType.RACK_IN_CRATE: Decimal("120"),
}
# Padding around the contents on each side of the suggested box (cm), and the box's largest side.
PACKAGE_PADDING_CM = Decimal("10")
PACKAGE_SIDE_MAX_CM = Decimal("2000")


def _kg(value: Decimal) -> str:
    """A weight as people write it: 520 kg, 14.82 kg (no trailing zeros, no exponent)."""
    text = f"{value.quantize(Decimal('0.01')):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _contents(items: list[tuple[ShipmentLine | int, int]]) -> list[tuple[int, Any]]:
    """(quantity, part) per item (a line or a line's id, and a quantity), the parts read in one query."""
    ids = [getattr(line, "pk", line) for line, _ in items]
    parts = {line.pk: line.part for line in ShipmentLine.objects.filter(pk__in=ids).select_related("part")}
    return [(quantity, parts[pk]) for pk, (_, quantity) in zip(ids, items, strict=True) if pk in parts]


def package_suggestion(
    items: list[tuple[ShipmentLine | int, int]], package_type: str = PackageType.CRATE
) -> dict[str, Decimal]:
    """The weights and size a package of `items` starts from: net = the contents' catalogue weight,
    gross = net + the packaging's tare; the box is the largest part's footprint with the units
    stacked, padded on every side. A suggestion only: the packer weighs and measures."""
    contents = _contents(items)
    net = sum((part.unit_weight_kg * quantity for quantity, part in contents), Decimal(0))
    tare = PACKAGE_TARE_KG.get(package_type, PACKAGE_TARE_KG[PackageType.CRATE])
    pad = 2 * PACKAGE_PADDING_CM

    def side(value: Decimal) -> Decimal:
        return min(max(value + pad, pad), PACKAGE_SIDE_MAX_CM).quantize(Decimal("0.1"))

    return {
        "net_kg": net.quantize(Decimal("0.01")),
        "gross_kg": (net + tare).quantize(Decimal("0.01")),
        "length_cm": side(max((part.length_cm for _, part in contents), default=Decimal(0))),
        "width_cm": side(max((part.width_cm for _, part in contents), default=Decimal(0))),
        "height_cm": side(sum((part.height_cm * quantity for quantity, part in contents), Decimal(0))),
    }


def _check_gross_weight(gross: Any, items: list[tuple[ShipmentLine, int]]) -> None:
    """Refuse a gross weight below the contents' catalogue weight, naming both."""
    if not isinstance(gross, Decimal | int | float):
        return  # missing or malformed: the model's own validation names it
    contents = _contents(items)
    weight = sum((part.unit_weight_kg * quantity for quantity, part in contents), Decimal(0))
    if Decimal(str(gross)) >= weight:
        return
    detail = ", ".join(f"{q} × {_kg(part.unit_weight_kg)} kg {part.part_number}" for q, part in contents[:5])
    raise ValidationError(
        {
            "gross_kg": f"Gross weight {_kg(Decimal(str(gross)))} kg is below the catalogue weight of "
            f"its contents, {_kg(weight)} kg ({detail}{', …' if len(contents) > 5 else ''}): "
            "weigh the package and enter its gross weight, packaging included."
        }
    )


@transaction.atomic
def package_add(
    *,
    shipment: Shipment,
    fields: dict[str, Any],
    items: list[tuple[ShipmentLine, int]],
    serials: list[str] | None = None,
) -> Package:
    """Pack units of lines (and, for serialised parts, their serial numbers) into a new package."""
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    if shipment.status not in (
        ShipmentStatus.DRAFT,
        ShipmentStatus.COMPLIANCE_REVIEW,
        ShipmentStatus.APPROVED,
    ):
        raise ValidationError(
            {
                "shipment": f"{shipment.reference} is {shipment.get_status_display().lower()}; "
                "packing changes only before booking."
            }
        )
    if not items:
        raise ValidationError({"items": "A package contains at least one line."})
    packed = dict(
        PackageItem.objects.filter(line__shipment=shipment).values_list("line_id").annotate(n=Sum("quantity"))
    )
    errors = []
    for line, quantity in items:
        if line.shipment_id != shipment.pk:
            errors.append(f"Line {line.pk} is not on {shipment.reference}.")
        elif quantity < 1:
            errors.append(f"Line {line.line_number}: quantity must be at least 1.")
        elif packed.get(line.pk, 0) + quantity > line.quantity:
            left = line.quantity - packed.get(line.pk, 0)
            errors.append(f"Line {line.line_number}: only {left} of {line.quantity} left to pack.")
    if errors:
        raise ValidationError({"items": errors})
    _check_gross_weight(fields.get("gross_kg"), items)
    number = (shipment.packages.aggregate(n=Max("number"))["n"] or 0) + 1
    package = validated_save(Package(shipment=shipment, number=number), **fields)
    PackageItem.objects.bulk_create(
        [PackageItem(package=package, line=line, quantity=q) for line, q in items]
    )
    if serials:
        _pack_serials(package, items, serials)
    return package


def _pack_serials(package: Package, items: list[tuple[ShipmentLine, int]], serials: list[str]) -> None:
    lines = {line.pk: (line, quantity) for line, quantity in items}
    found = {
        s.unit.serial: s
        for s in LineSerial.objects.filter(line_id__in=lines, unit__serial__in=serials).select_related("unit")
    }
    errors = []
    unknown = [s for s in serials if s not in found]
    if unknown:
        errors.append(f"Not serial numbers of these lines: {', '.join(unknown[:10])}.")
    elsewhere = [s for s in found.values() if s.package_id and s.package_id != package.pk]
    if elsewhere:
        errors.append(f"Already packed elsewhere: {', '.join(s.serial for s in elsewhere[:10])}.")
    per_line = Counter(s.line_id for s in found.values())
    for line_id, count in per_line.items():
        line, quantity = lines[line_id]
        if count > quantity:
            errors.append(f"Line {line.line_number}: {count} serials for {quantity} units in this package.")
    if errors:
        raise ValidationError({"serials": errors})
    LineSerial.objects.filter(pk__in=[s.pk for s in found.values()]).update(package=package)


@transaction.atomic
def package_remove(*, package: Package) -> None:
    if package.shipment.status not in (
        ShipmentStatus.DRAFT,
        ShipmentStatus.COMPLIANCE_REVIEW,
        ShipmentStatus.APPROVED,
    ):
        raise ValidationError({"shipment": "Packing changes only before booking."})
    package.delete()
