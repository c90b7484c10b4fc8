"""Setting stock aside for an outbound shipment line and giving it back: allocating units and
lot quantities (under the line's lock, within the line's quantity, from a warehouse the shipment
leaves from), releasing them, and the shipment flow's hook that puts a cancelled shipment's stock
back on the shelf."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Sum

from apps.accounts.models import User
from apps.catalog.models import Unit, UnitStatus
from apps.shipments.models import Shipment, ShipmentLine, ShipmentStatus

from ..engines import unit_flow
from ..engines.unit_flow import Status
from ..models import AllocationStatus, Lot, LotAllocation, Movement, MovementKind, UnitPlacement
from .ledger import _ledger, _quantity
from .units import unit_transition

# Outbound stock is set aside for a shipment that has not left yet, and leaves the warehouse only
# once compliance has approved the shipment. A consolidation in transit still takes stock at a
# hub its next leg has not left yet (`_ships_from`).
ALLOCATABLE = frozenset(
    {
        ShipmentStatus.DRAFT,
        ShipmentStatus.COMPLIANCE_REVIEW,
        ShipmentStatus.APPROVED,
        ShipmentStatus.BOOKED,
        ShipmentStatus.IN_TRANSIT,
    }
)
SHIPPABLE = frozenset({ShipmentStatus.APPROVED, ShipmentStatus.BOOKED, ShipmentStatus.IN_TRANSIT})


def _locked_line(line: ShipmentLine, allowed: frozenset, what: str) -> ShipmentLine:
    line = ShipmentLine.objects.select_for_update().select_related("shipment", "part").get(pk=line.pk)
    shipment = Shipment.objects.get(pk=line.shipment_id)
    line.shipment = shipment
    if shipment.status not in allowed:
        raise ValidationError(
            {"line": f"{shipment.reference} is {shipment.get_status_display().lower()}: stock is {what} only "
             f"while it is {', '.join(ShipmentStatus(s).label.lower() for s in sorted(allowed))}."}
        )  # fmt: skip
    return line


def _ships_from(shipment: Shipment, site_id: int) -> bool:
    """Whether the shipment starts at the site, or has a leg that does (a consolidation hub). Once
    it is under way, only a leg that has not departed yet takes stock: a consolidation whose
    inbound legs are moving gathers its goods at the hub until its main carriage leaves."""
    if shipment.status == ShipmentStatus.IN_TRANSIT:
        return shipment.legs.filter(origin_id=site_id, actual_departure__isnull=True).exists()
    return shipment.origin_id == site_id or shipment.legs.filter(origin_id=site_id).exists()


def _leaves_from_problem(what: str, site, shipment: Shipment) -> str:
    if shipment.status == ShipmentStatus.IN_TRANSIT:
        return (
            f"{what} is at {site.name}: {shipment.reference} is in transit, and no leg of it still to "
            "depart leaves from there."
        )
    return f"{what} is at {site.name}, which {shipment.reference} does not leave from."


def _allocated_to(line: ShipmentLine) -> int:
    """Pieces allocated to the line, picked or shipped (a shipped unit leaves its placement; the
    ledger remembers it)."""
    units = UnitPlacement.objects.filter(line=line).count()
    units += Movement.objects.filter(kind=MovementKind.SHIPMENT, line=line, unit__isnull=False).count()
    lots = (
        LotAllocation.objects.filter(line=line)
        .exclude(status=AllocationStatus.RELEASED)
        .aggregate(n=Sum("quantity"))["n"]
        or 0
    )
    return units + lots


def _capacity(line: ShipmentLine, more: int, field_name: str) -> None:
    already = _allocated_to(line)
    if already + more > line.quantity:
        raise ValidationError(
            {
                field_name: f"Line {line.line_number} of {line.shipment.reference} is for {line.quantity}; "
                f"{already} allocated already, {more} more would be {already + more}."
            }
        )


@transaction.atomic
def units_allocate(
    *, line: ShipmentLine, units: list[Unit], actor: User | None, reason: str = ""
) -> list[Unit]:
    """Allocate available units of the line's part, in a warehouse the shipment leaves from, to an
    outbound shipment line. Safe under concurrency: the line and the units are locked, so two
    people allocating the same serial at once cannot both succeed."""
    if not units:
        raise ValidationError({"units": "Choose the units to allocate."})
    line = _locked_line(line, ALLOCATABLE, "allocated")
    locked = list(Unit.objects.select_for_update().filter(pk__in=[u.pk for u in units]).order_by("pk"))
    placements = {
        p.unit_id: p
        for p in UnitPlacement.objects.select_for_update()
        .filter(unit__in=locked)
        .select_related("location__site")
    }
    problems = []
    for unit in locked:
        placement = placements.get(unit.pk)
        if unit.part_id != line.part_id:
            problems.append(f"Serial {unit.serial} is not a {line.part.part_number} (the line's part).")
        elif placement is None:
            problems.append(f"Serial {unit.serial} is not in a warehouse.")
        elif unit.status != UnitStatus.AVAILABLE:
            problems.append(f"Serial {unit.serial} is {unit.get_status_display().lower()}, not available.")
        elif not _ships_from(line.shipment, placement.location.site_id):
            problems.append(
                _leaves_from_problem(f"Serial {unit.serial}", placement.location.site, line.shipment)
            )
    if problems:
        raise ValidationError({"units": problems[:10]})
    _capacity(line, len(locked), "units")
    return [
        unit_transition(
            unit=unit,
            target=Status.ALLOCATED,
            action=unit_flow.Action.ALLOCATE,
            actor=actor,
            reason=reason,
            line=line,
        )
        for unit in locked
    ]


@transaction.atomic
def lot_allocate(
    *, line: ShipmentLine, lot: Lot, quantity: int, actor: User | None, reason: str = ""
) -> LotAllocation:
    """Set aside `quantity` pieces of a lot for an outbound shipment line. Safe under concurrency:
    one conditional update takes them only while that many are free (on hand less allocated), and
    the database refuses more allocated than on hand."""
    quantity = _quantity(quantity)
    line = _locked_line(line, ALLOCATABLE, "allocated")
    lot = Lot.objects.select_related("part", "location__site").get(pk=lot.pk)
    if lot.part_id != line.part_id:
        raise ValidationError(
            {"lot": f"Lot {lot.pk} is {lot.part.part_number}, not the line's {line.part.part_number}."}
        )
    if not _ships_from(line.shipment, lot.location.site_id):
        raise ValidationError(
            {"lot": _leaves_from_problem(f"Lot {lot.pk}", lot.location.site, line.shipment)}
        )
    _capacity(line, quantity, "quantity")
    taken = Lot.objects.filter(pk=lot.pk, quantity__gte=F("allocated") + quantity).update(
        allocated=F("allocated") + quantity
    )
    if not taken:
        lot.refresh_from_db()
        raise ValidationError(
            {
                "quantity": f"Only {max(lot.free, 0)} of {lot.part.part_number} at {lot.location.code} "
                "are free "
                f"({lot.quantity} on hand, {lot.allocated} allocated); {quantity} asked."
            }
        )
    allocation = LotAllocation.objects.create(lot=lot, line=line, quantity=quantity)
    _lot_ledger(MovementKind.ALLOCATION, allocation, lot, actor=actor, reason=reason)
    return allocation


def _lot_ledger(kind: str, allocation: LotAllocation, lot: Lot, *, actor: User | None, reason: str) -> None:
    _ledger(
        kind,
        actor=actor,
        part_id=lot.part_id,
        owner_id=lot.owner_id,
        quantity=allocation.quantity,
        from_location=lot.location,
        to_location=None if kind == MovementKind.SHIPMENT else lot.location,
        reason=reason,
        customs_status=lot.customs_status,
        customs_reference=lot.customs_reference,
        line=allocation.line,
    )


def _locked_allocation(allocation: LotAllocation, allowed: set[str], what: str) -> LotAllocation:
    allocation = (
        LotAllocation.objects.select_for_update()
        .select_related("line", "lot__part", "lot__location")
        .get(pk=allocation.pk)
    )
    if allocation.status not in allowed:
        raise ValidationError(
            {
                "allocation": f"This allocation is {allocation.get_status_display().lower()}: "
                f"it cannot be {what}."
            }
        )
    return allocation


@transaction.atomic
def lot_allocation_release(
    *, allocation: LotAllocation, actor: User | None, reason: str = ""
) -> LotAllocation:
    """Give an allocated (or picked, not yet shipped) quantity back to its lot."""
    allocation = _locked_allocation(
        allocation, {AllocationStatus.ALLOCATED, AllocationStatus.PICKED}, "released"
    )
    Lot.objects.filter(pk=allocation.lot_id).update(allocated=F("allocated") - allocation.quantity)
    allocation.status = AllocationStatus.RELEASED
    allocation.save(update_fields=["status", "updated_at"])
    _lot_ledger(MovementKind.RELEASE, allocation, allocation.lot, actor=actor, reason=reason)
    return allocation


@transaction.atomic
def units_give_back(*, units: list[Unit], actor: User | None, reason: str = "") -> list[Unit]:
    """Give units back one step, in primary-key order: a picked unit goes back on the shelf, still
    allocated to its line; an allocated one is released (available again)."""
    given = []
    for unit in sorted(units, key=lambda u: u.pk):
        current = Unit.objects.values_list("status", flat=True).get(pk=unit.pk)
        target = Status.ALLOCATED if current == UnitStatus.PICKED else Status.AVAILABLE
        given.append(
            unit_transition(
                unit=unit, target=target, action=unit_flow.Action.GIVE_BACK, actor=actor, reason=reason
            )
        )
    return given


# --- the shipment flow's hooks ----------------------------------------------------------------


def release_for_cancelled(event: Any) -> None:
    """`shipments.hooks.on_enter(CANCELLED, …)`: a cancelled shipment's allocated and picked stock
    goes back on the shelf (units available again, lot quantities back to their lots), in the
    cancellation's own transaction."""
    reason = f"{event.shipment.reference} cancelled" + (f": {event.reason}" if event.reason else "")
    lines = ShipmentLine.objects.filter(shipment_id=event.shipment.pk)
    for placement in UnitPlacement.objects.filter(line__in=lines).select_related("unit").order_by("unit_id"):
        unit = placement.unit
        if unit.status == UnitStatus.PICKED:
            unit = units_give_back(units=[unit], actor=event.actor, reason=reason)[0]
        if unit.status == UnitStatus.ALLOCATED:
            units_give_back(units=[unit], actor=event.actor, reason=reason)
    for allocation in LotAllocation.objects.filter(
        line__in=lines, status__in=[AllocationStatus.ALLOCATED, AllocationStatus.PICKED]
    ).order_by("pk"):
        lot_allocation_release(allocation=allocation, actor=event.actor, reason=reason)
