"""Picking allocated stock off the shelf and shipping a line out of the warehouse: picked units
become shipped and leave their location, picked lot quantities leave their lots."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from apps.accounts.models import User
from apps.catalog.models import Unit, UnitStatus
from apps.shipments.models import ShipmentLine

from ..engines import unit_flow
from ..engines.unit_flow import Status
from ..models import AllocationStatus, Lot, LotAllocation, MovementKind, UnitPlacement
from .allocation import SHIPPABLE, _locked_allocation, _locked_line, _lot_ledger
from .ledger import _locked_lots
from .units import unit_transition


@transaction.atomic
def units_pick(*, units: list[Unit], actor: User | None, reason: str = "") -> list[Unit]:
    """Pick allocated units (allocated → picked), in primary-key order."""
    return [
        unit_transition(
            unit=unit, target=Status.PICKED, action=unit_flow.Action.PICK, actor=actor, reason=reason
        )
        for unit in sorted(units, key=lambda u: u.pk)
    ]


@transaction.atomic
def lot_allocation_pick(*, allocation: LotAllocation, actor: User | None, reason: str = "") -> LotAllocation:
    """Pick an allocated lot quantity (it stays on hand at its location until shipped)."""
    allocation = _locked_allocation(allocation, {AllocationStatus.ALLOCATED}, "picked")
    allocation.status = AllocationStatus.PICKED
    allocation.save(update_fields=["status", "updated_at"])
    _lot_ledger(MovementKind.PICK, allocation, allocation.lot, actor=actor, reason=reason)
    return allocation


@dataclass
class Shipped:
    units: list[Unit]
    allocations: list[LotAllocation]


@transaction.atomic
def line_ship(*, line: ShipmentLine, actor: User | None, reason: str = "") -> Shipped:
    """Ship everything allocated to a line out of the warehouse: picked units become shipped (and
    leave their location), picked lot quantities leave their lots. The line's stock must all be
    picked: an allocated, unpicked or quarantined unit refuses the whole shipment. The shipment
    must be approved (or booked, or under way)."""
    line = _locked_line(line, SHIPPABLE, "shipped")
    placements = list(
        UnitPlacement.objects.select_for_update().filter(line=line).select_related("unit").order_by("unit_id")
    )
    allocations = list(
        LotAllocation.objects.select_for_update()
        .filter(line=line, status__in=[AllocationStatus.ALLOCATED, AllocationStatus.PICKED])
        .select_related("lot__part", "lot__location")
        .order_by("pk")
    )
    problems = []
    for placement in placements:
        unit = placement.unit
        if unit.status == UnitStatus.QUARANTINED:
            problems.append(f"Serial {unit.serial} is quarantined: it cannot be shipped.")
        elif unit.status != UnitStatus.PICKED:
            problems.append(f"Serial {unit.serial} is {unit.get_status_display().lower()}, not picked yet.")
    for allocation in allocations:
        if allocation.status != AllocationStatus.PICKED:
            problems.append(
                f"{allocation.quantity} × {allocation.lot.part.part_number} at "
                f"{allocation.lot.location.code} are allocated, not picked yet."
            )
    if problems:
        raise ValidationError({"line": problems[:10]})
    if not placements and not allocations:
        raise ValidationError(
            {"line": f"Nothing is picked for line {line.line_number} of {line.shipment.reference}."}
        )
    units = [
        unit_transition(
            unit=p.unit,
            target=Status.SHIPPED,
            action=unit_flow.Action.SHIP,
            actor=actor,
            reason=reason,
            line=line,
        )
        for p in placements
    ]
    _locked_lots(*[a.lot for a in allocations])
    for allocation in allocations:
        q = allocation.quantity
        Lot.objects.filter(pk=allocation.lot_id, quantity__gte=q, allocated__gte=q).update(
            quantity=F("quantity") - q, allocated=F("allocated") - q
        )
        allocation.status = AllocationStatus.SHIPPED
        allocation.save(update_fields=["status", "updated_at"])
        _lot_ledger(MovementKind.SHIPMENT, allocation, allocation.lot, actor=actor, reason=reason)
    return Shipped(units=units, allocations=allocations)
