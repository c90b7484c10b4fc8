"""Packing picked stock into an outbound shipment's packages: the package and the serials
on the shipment follow from what was packed, never typed a second time.

A picked unit is allocated to a line of the shipment (`UnitPlacement.line`): packing puts its serial
on that line (the same `catalog.Unit`, through the shipments' own `serials_set`) and into a new
package (`package_add`), in one transaction."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.accounts.models import User
from apps.catalog.models import Unit, UnitStatus
from apps.shipments import services as shipments
from apps.shipments.models import Package, Shipment

from ..models import UnitPlacement


def packable(shipment: Shipment) -> list[UnitPlacement]:
    """The picked units allocated to `shipment`'s lines and not in one of its packages yet (lot
    pieces are packed by quantity on the shipment page)."""
    packed = set(
        shipment.lines.filter(serials__package__isnull=False).values_list("serials__unit_id", flat=True)
    )
    return [
        placement
        for placement in UnitPlacement.objects.filter(line__shipment=shipment, unit__status=UnitStatus.PICKED)
        .select_related("unit", "line__part", "location")
        .order_by("line__line_number", "unit__serial")
        if placement.unit_id not in packed
    ]


@transaction.atomic
def units_pack(
    *, shipment: Shipment, units: list[Unit], fields: dict[str, Any], actor: User | None
) -> Package:
    """Pack picked `units` (allocated to lines of `shipment`) into a new package of `fields`
    (type, sizes, weights): each serial is put on its line if it is not there yet, then packed."""
    if not units:
        raise ValidationError({"units": "Tick the picked units that go in this package."})
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    placements = {
        p.unit_id: p
        # Only the placements are locked: the line is an outer join, which PostgreSQL will not lock.
        for p in UnitPlacement.objects.select_for_update(of=("self",))
        .filter(unit__in=units)
        .select_related("unit", "line__part")
    }
    problems = []
    by_line: dict[int, list[Unit]] = defaultdict(list)
    lines = {}
    for unit in units:
        placement = placements.get(unit.pk)
        if placement is None or placement.line is None or placement.line.shipment_id != shipment.pk:
            problems.append(f"Serial {unit.serial} is not allocated to {shipment.reference}.")
        elif placement.unit.status != UnitStatus.PICKED:
            problems.append(
                f"Serial {unit.serial} is {placement.unit.get_status_display().lower()}: pick it first."
            )
        else:
            by_line[placement.line_id].append(placement.unit)
            lines[placement.line_id] = placement.line
    if problems:
        raise ValidationError({"units": problems[:10]})
    for line_id, picked in by_line.items():
        line = lines[line_id]
        on_line = list(line.serials.select_related("unit").values_list("unit__serial", flat=True))
        missing = [u.serial for u in picked if u.serial not in on_line]
        if missing:
            shipments.serials_set(line=line, serials=on_line + missing)
    return shipments.package_add(
        shipment=shipment,
        fields=fields,
        items=[(lines[line_id], len(picked)) for line_id, picked in by_line.items()],
        serials=[u.serial for picked in by_line.values() for u in picked],
    )
