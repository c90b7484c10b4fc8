"""Packing a shipment's lines (and their serial numbers) into packages, before booking."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, Sum

from ..models import LineSerial, Package, PackageItem, Shipment, ShipmentLine, ShipmentStatus
from .base import validated_save


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
