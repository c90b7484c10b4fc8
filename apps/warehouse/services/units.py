"""The one service that changes a unit's status (or customs status, or place in a warehouse):
`unit_transition`, checked against `engines.unit_flow` and where the books have the unit
(`whereabouts`), with its ledger row and audit transition in the same transaction."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.accounts.models import User
from apps.catalog.models import Unit, UnitStatus
from apps.core.audit import record_transition
from apps.shipments.models import Leg, LineSerial, Shipment, ShipmentLine
from apps.shipments.services import LIVE_STATUSES

from ..engines import unit_flow
from ..engines.unit_flow import Customs, Status
from ..models import Location, Movement, MovementKind, UnitPlacement
from .ledger import _ledger

_KIND_FOR_TARGET = {
    Status.RECEIVED: MovementKind.RECEIPT,
    Status.ALLOCATED: MovementKind.ALLOCATION,
    Status.PICKED: MovementKind.PICK,
    Status.SHIPPED: MovementKind.SHIPMENT,
}


def whereabouts(unit: Unit, placement: UnitPlacement | None) -> unit_flow.Whereabouts:
    """Where the books have `unit`: the site of its placement; or, shipped, the shipment of its
    last ledger row, the site it left and where that shipment's leg from there ends (the
    shipment's destination when it has no leg from there and starts there); or, expected, the
    live shipment whose notice lists it and where the leg carrying its line ends."""
    if placement is not None:
        site = placement.location.site
        return unit_flow.Whereabouts(site_id=site.pk, site=site.name)
    last = (
        Movement.objects.filter(unit_id=unit.pk)
        .select_related("from_location__site", "shipment__destination")
        .order_by("-id")
        .first()
    )
    if last is not None and last.kind == MovementKind.SHIPMENT and last.shipment is not None:
        shipment, left = last.shipment, last.from_location.site
        ends = [
            leg.destination for leg in shipment.legs.filter(origin_id=left.pk).select_related("destination")
        ]
        if not ends and shipment.origin_id == left.pk:
            ends = [shipment.destination]
        return _bound(shipment, ends, left=left.name)
    if last is None and unit.status == UnitStatus.EXPECTED:
        row = (
            LineSerial.objects.filter(unit_id=unit.pk, line__shipment__status__in=LIVE_STATUSES)
            .select_related("line__shipment__destination")
            .first()
        )
        if row is not None:
            legs = Leg.objects.filter(lines=row.line).select_related("destination")
            return _bound(
                row.line.shipment, [leg.destination for leg in legs] or [row.line.shipment.destination]
            )
    return unit_flow.Whereabouts()


def _bound(shipment: Shipment, ends: list, left: str = "") -> unit_flow.Whereabouts:
    return unit_flow.Whereabouts(
        shipment=shipment.reference,
        left=left,
        bound_for_ids=frozenset(site.pk for site in ends),
        bound_for=" or ".join(sorted({site.name for site in ends})),
    )


@transaction.atomic
def unit_transition(
    *,
    unit: Unit,
    target: str,
    action: str,
    actor: User | None,
    reason: str = "",
    to_location: Location | None = None,
    customs_status: str | None = None,
    customs_reference: str | None = None,
    line: ShipmentLine | None = None,
    arrival: unit_flow.Arrival | None = None,
) -> Unit:
    """The only way a unit's status (or customs status, or place in a warehouse) changes: lock the
    unit and its placement, check the move against `engines.unit_flow` — the unit's state, the
    service making the change (`action`) and where the books have the unit — then save, and write
    one ledger row (and the audit log's transition) in the same transaction.

    `target` may be the unit's status when only its location (a move, a count) or its customs
    status changes. Entering the warehouse (received) needs `to_location` and the receipt's
    `arrival`; leaving it (shipped) removes the placement; being allocated needs the shipment
    `line`."""
    unit = Unit.objects.select_for_update().get(pk=unit.pk)
    placement = (
        UnitPlacement.objects.select_for_update(of=("self",))
        .select_related("location__site")
        .filter(unit=unit)
        .first()
    )
    try:
        current, new = Status(unit.status), Status(target)
    except ValueError as exc:
        raise ValidationError({"status": f"Unknown unit status {target!r}."}) from exc
    try:
        action = unit_flow.Action(action)
    except ValueError as exc:
        raise ValidationError({"status": f"Unknown warehouse action {action!r}."}) from exc
    reason = (reason or "").strip()
    moved = to_location is not None and (placement is None or placement.location_id != to_location.pk)
    customs_before = Customs(unit.customs_status)
    customs_after = Customs(customs_status) if customs_status is not None else customs_before
    if new == Status.SHIPPED:
        customs_after = Customs.NONE  # out of the warehouse, out of its customs regime
    stays = new == current and action in unit_flow.STAYING and current in unit_flow.IN_STOCK
    if new == current and not stays:
        raise ValidationError({"status": f"Serial {unit.serial} is {unit_flow.LABELS[current]} already."})
    if problem := unit_flow.change_problem(
        current,
        new,
        action=action,
        where=whereabouts(unit, placement),
        arrival=arrival,
        to_site_id=to_location.site_id if to_location is not None else None,
        reason=reason,
    ):
        raise ValidationError({"status": f"Serial {unit.serial}: {problem}"})
    if new == current and not moved and customs_after == customs_before and action != unit_flow.Action.COUNT:
        raise ValidationError({"status": f"Serial {unit.serial} is {unit_flow.LABELS[current]} already."})
    reference = (
        customs_reference if customs_reference is not None else getattr(placement, "customs_reference", "")
    )
    reference = (reference or "").strip()
    if problem := unit_flow.customs_problem(customs_before, customs_after, customs_reference=reference):
        raise ValidationError({"customs_status": f"Serial {unit.serial}: {problem}"})
    if new == Status.RECEIVED and current != Status.RECEIVED and to_location is None:
        raise ValidationError({"location": f"Serial {unit.serial}: say where it is received."})
    if new == Status.ALLOCATED and current == Status.AVAILABLE and line is None:
        raise ValidationError({"line": f"Serial {unit.serial}: say which shipment line it is allocated to."})

    from_location = placement.location if placement is not None else None
    if new == Status.SHIPPED:
        where_after = None
        shipped_line = placement.line if placement is not None else None
        if placement is not None:
            placement.delete()
    else:
        shipped_line = None
        if placement is None:
            placement = UnitPlacement(unit=unit, location=to_location)
        elif to_location is not None:
            placement.location = to_location
        placement.customs_reference = reference
        if new == Status.ALLOCATED and line is not None:
            placement.line = line
        elif new == Status.AVAILABLE:
            placement.line = None
        placement.save()
        where_after = placement.location
    unit.status, unit.customs_status = new.value, customs_after.value
    unit.save(update_fields=["status", "customs_status", "updated_at"])
    if action == unit_flow.Action.COUNT:
        kind = MovementKind.COUNT
    else:
        if new == Status.AVAILABLE and current == Status.ALLOCATED:
            kind = MovementKind.RELEASE
        elif new == Status.AVAILABLE and current == Status.RECEIVED and moved:
            kind = MovementKind.PUT_AWAY
        elif new == current and moved:
            kind = MovementKind.MOVE
        elif new == current and customs_after != customs_before:
            kind = MovementKind.CUSTOMS
        else:
            kind = _KIND_FOR_TARGET.get(new, MovementKind.STATUS)
    _ledger(
        kind,
        actor=actor,
        part_id=unit.part_id,
        owner_id=unit.owner_id,
        quantity=1,
        from_location=from_location,
        to_location=where_after,
        reason=reason,
        customs_status=(customs_before if new == Status.SHIPPED else customs_after).value,
        customs_reference=reference,
        unit=unit,
        status_before=current.value,
        status_after=new.value,
        line=line or shipped_line or (placement.line if placement is not None and placement.pk else None),
    )
    if new != current:
        record_transition(
            unit, field="status", before=current.value, after=new.value, actor=actor, reason=reason
        )
    return unit
