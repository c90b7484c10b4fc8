"""Writes for the warehouse: receipts, put-away and moves, adjustments, counts, allocation to
outbound shipment lines, picking and shipping. Each is one transaction and writes its rows of the
movement ledger in it; a refusal is a `ValidationError` naming the field (and the serial or lot)
and leaves nothing written.

Stock changes by conditional updates (`filter(quantity__gte=…).update(quantity=F(…) - n)`) or
under row locks taken in primary-key order, never by read-modify-write, and the database's check
constraints refuse a negative on-hand or more allocated than on hand (style.md)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Sum
from django.db.models.functions import Lower

from apps.accounts.models import Organisation, User
from apps.catalog.models import Part, Unit, UnitStatus
from apps.catalog.units import units_for
from apps.core.audit import record_transition
from apps.shipments.models import Leg, LineSerial, Shipment, ShipmentLine, ShipmentStatus
from apps.shipments.services import LIVE_STATUSES

from .engines import unit_flow
from .engines.unit_flow import Customs, Status
from .models import (
    QUANTITY_MAX,
    AllocationStatus,
    Location,
    Lot,
    LotAllocation,
    Movement,
    MovementKind,
    UnitPlacement,
)

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
_KIND_FOR_TARGET = {
    Status.RECEIVED: MovementKind.RECEIPT,
    Status.ALLOCATED: MovementKind.ALLOCATION,
    Status.PICKED: MovementKind.PICK,
    Status.SHIPPED: MovementKind.SHIPMENT,
}


def _actor_label(actor: Any) -> str:
    if actor is None:
        return ""
    name = actor.get_full_name() or actor.get_username()
    org = getattr(actor, "organisation", None)
    return f"{name} ({org})"[:300] if org else name[:300]


def _ledger(
    kind: str,
    *,
    actor: User | None,
    part_id: int,
    owner_id: int,
    quantity: int,
    from_location: Location | None,
    to_location: Location | None,
    reason: str = "",
    customs_status: str = "",
    customs_reference: str = "",
    unit: Unit | None = None,
    status_before: str = "",
    status_after: str = "",
    line: ShipmentLine | None = None,
) -> Movement:
    return Movement.objects.create(
        kind=kind,
        actor=actor if actor is not None and actor.pk else None,
        actor_label=_actor_label(actor),
        reason=(reason or "")[:500],
        part_id=part_id,
        owner_id=owner_id,
        unit=unit,
        quantity=quantity,
        from_location=from_location,
        to_location=to_location,
        customs_status=customs_status or "",
        customs_reference=customs_reference or "",
        status_before=status_before,
        status_after=status_after,
        shipment_id=line.shipment_id if line is not None else None,
        line=line,
    )


def _location(location: Location, field_name: str = "location") -> Location:
    location = Location.objects.select_related("site").get(pk=location.pk)
    if not location.is_active:
        raise ValidationError({field_name: f"{location} is inactive: it takes no new stock."})
    return location


def _quantity(quantity: Any, field_name: str = "quantity") -> int:
    if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= QUANTITY_MAX:
        raise ValidationError({field_name: f"A quantity is a whole number from 1 to {QUANTITY_MAX:,}."})
    return quantity


def _customs_on_receipt(location: Location, customs_reference: str) -> tuple[str, str]:
    customs = unit_flow.customs_on_receipt(bonded=location.site.is_bonded)
    reference = (customs_reference or "").strip()
    if customs in unit_flow.NEEDS_CUSTOMS_REFERENCE and not reference:
        raise ValidationError(
            {
                "customs_reference": f"{location.site.name} is bonded: goods enter it in bond, under the "
                "customs entry or warehouse receipt number."
            }
        )
    if len(reference) > 50:
        raise ValidationError({"customs_reference": "A customs reference has at most 50 characters."})
    return customs.value, reference


def _reason(reason: str, what: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": f"Say why: {what} needs a reason."})
    return reason


# --- locations -------------------------------------------------------------------------------


@transaction.atomic
def location_create(*, site, zone: str, aisle: str = "", rack: str = "", bin: str = "") -> Location:  # noqa: A002
    """A new location (zone, aisle, rack, bin) in a warehouse site."""
    location = Location(site=site, zone=zone, aisle=aisle, rack=rack, bin=bin)
    location.full_clean()
    location.save()
    return location


# --- the one service that changes a unit's status --------------------------------------------


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


# --- receipts ----------------------------------------------------------------------------------


def _clean_serials(serials: Iterable[str], field_name: str = "serials") -> list[str]:
    cleaned = [(s or "").strip() for s in serials]
    problems = []
    if any(not s for s in cleaned):
        problems.append("Serial numbers may not be blank.")
    seen: dict[str, int] = {}
    for s in cleaned:
        seen[s.lower()] = seen.get(s.lower(), 0) + 1
    if repeated := sorted({s for s in cleaned if s and seen[s.lower()] > 1}):
        problems.append(f"Repeated serial numbers: {', '.join(repeated[:10])}.")
    if problems:
        raise ValidationError({field_name: problems})
    return cleaned


@transaction.atomic
def units_receive(
    *,
    location: Location,
    part: Part,
    serials: list[str],
    owner: Organisation,
    actor: User | None,
    customs_reference: str = "",
    reason: str = "",
    country_of_origin: str = "",
    arriving_on: Shipment | None = None,
) -> list[Unit]:
    """Receive serialised units of `part` into `location`: received (to be put away), in bond at
    a bonded site (which needs the customs reference), duty paid anywhere else. A serial not known
    yet becomes a unit owned by `owner`; one in a warehouse already, another organisation's, or
    one on its way elsewhere is refused (`receive_problems`). `arriving_on` is the shipment whose
    notice the units are received against (a receipt); a shipped unit is received only against
    the shipment carrying it, at the end of its leg. `country_of_origin` is the one declared on
    the inbound line the units arrive on: it is recorded on each unit; without one, a unit keeps
    its own, else takes the part's."""
    location = _location(location)
    if not part.is_serialised:
        raise ValidationError(
            {"part": f"{part.part_number} is not serialised: receive it as a lot quantity."}
        )
    if not serials:
        raise ValidationError({"serials": "Give the serial number of every unit received."})
    customs, reference = _customs_on_receipt(location, customs_reference)
    units = units_for(part=part, serials=_clean_serials(serials), owner_id=owner.pk)
    problems = [
        f"Serial {unit.serial} is another organisation's unit." for unit in units if unit.owner_id != owner.pk
    ]
    problems += receive_problems(units, location=location, arriving_on=arriving_on)
    if problems:
        raise ValidationError({"serials": problems[:10]})
    arrival = _arrival(location, arriving_on)
    declared = Unit.objects.filter(pk__in=[unit.pk for unit in units])
    if country_of_origin:
        declared.update(country_of_origin=country_of_origin)
    else:
        declared.filter(country_of_origin="").update(country_of_origin=part.country_of_origin)
    return [
        unit_transition(
            unit=unit,
            target=Status.RECEIVED,
            actor=actor,
            reason=reason,
            to_location=location,
            customs_status=customs,
            customs_reference=reference,
            action=unit_flow.Action.RECEIVE,
            arrival=arrival,
        )
        for unit in units
    ]


def _arrival(location: Location, arriving_on: Shipment | None) -> unit_flow.Arrival:
    site = location.site
    return unit_flow.Arrival(
        site_id=site.pk, site=site.name, shipment=arriving_on.reference if arriving_on is not None else ""
    )


def receive_problems(
    units: Iterable[Unit], *, location: Location, arriving_on: Shipment | None = None
) -> list[str]:
    """Why each of `units` may not be received at `location` (against `arriving_on`'s notice),
    naming where the books have it: in a warehouse already, or shipped towards another place."""
    units = list(units)
    placements = {
        p.unit_id: p
        for p in UnitPlacement.objects.select_for_update(of=("self",))
        .filter(unit__in=units)
        .select_related("location__site")
    }
    arrival = _arrival(location, arriving_on)
    problems = []
    for unit in units:
        if placement := placements.get(unit.pk):
            where = (
                f"this warehouse ({placement.location.code})"
                if placement.location.site_id == location.site_id
                else f"another warehouse ({placement.location.site.name})"
            )
            problems.append(f"Serial {unit.serial} is already in {where}.")
        elif problem := unit_flow.change_problem(
            Status(unit.status),
            Status.RECEIVED,
            action=unit_flow.Action.RECEIVE,
            where=whereabouts(unit, None),
            arrival=arrival,
        ):
            problems.append(f"Serial {unit.serial}: {problem}")
    return problems


def _lot_for(*, part_id: int, location: Location, owner_id: int, customs_status: str, reference: str) -> Lot:
    lot, _ = Lot.objects.get_or_create(
        part_id=part_id,
        location=location,
        owner_id=owner_id,
        customs_status=customs_status,
        customs_reference=reference,
    )
    return lot


@transaction.atomic
def lot_receive(
    *,
    location: Location,
    part: Part,
    quantity: int,
    owner: Organisation,
    actor: User | None,
    customs_reference: str = "",
    reason: str = "",
) -> Lot:
    """Receive `quantity` pieces of a non-serialised part into `location` (its lot there for
    `owner` and the customs standing the site gives)."""
    location = _location(location)
    if part.is_serialised:
        raise ValidationError(
            {"part": f"{part.part_number} is serialised: receive its units by serial number."}
        )
    quantity = _quantity(quantity)
    customs, reference = _customs_on_receipt(location, customs_reference)
    lot = _lot_for(
        part_id=part.pk, location=location, owner_id=owner.pk, customs_status=customs, reference=reference
    )
    Lot.objects.filter(pk=lot.pk).update(quantity=F("quantity") + quantity)
    _ledger(
        MovementKind.RECEIPT,
        actor=actor,
        part_id=part.pk,
        owner_id=owner.pk,
        quantity=quantity,
        from_location=None,
        to_location=location,
        reason=reason,
        customs_status=customs,
        customs_reference=reference,
    )
    lot.refresh_from_db()
    return lot


# --- put-away, moves, adjustments -------------------------------------------------------------


def _same_warehouse(source: Location, target: Location) -> None:
    if target.site_id != source.site_id:
        raise ValidationError(
            {
                "to_location": f"{target} is in another warehouse than {source}: goods go between "
                "warehouses on a shipment."
            }
        )
    if target.pk == source.pk:
        raise ValidationError({"to_location": f"The goods are at {target.code} already."})


@transaction.atomic
def unit_move(*, unit: Unit, to_location: Location, actor: User | None, reason: str = "") -> Unit:
    """Move a unit to another location of the same warehouse; a received unit's first move is its
    put-away, which makes it available."""
    to_location = _location(to_location, "to_location")
    placement = UnitPlacement.objects.select_related("location").filter(unit_id=unit.pk).first()
    if placement is None:
        raise ValidationError({"unit": f"Serial {unit.serial} is not in a warehouse."})
    _same_warehouse(placement.location, to_location)
    current = Unit.objects.values_list("status", flat=True).get(pk=unit.pk)
    put_away = current == UnitStatus.RECEIVED
    return unit_transition(
        unit=unit,
        target=Status.AVAILABLE if put_away else Status(current),
        action=unit_flow.Action.PUT_AWAY if put_away else unit_flow.Action.MOVE,
        actor=actor,
        reason=reason,
        to_location=to_location,
    )


def _locked_lots(*lots: Lot) -> dict[int, Lot]:
    """Lock lots in primary-key order (two moves in opposite directions never deadlock)."""
    return {
        lot.pk: lot
        for lot in Lot.objects.select_for_update()
        .select_related("location__site", "part")
        .filter(pk__in=[lot.pk for lot in lots])
        .order_by("pk")
    }


@transaction.atomic
def lot_move(
    *, lot: Lot, quantity: int, to_location: Location, actor: User | None, reason: str = "", kind: str = ""
) -> Lot:
    """Move (or put away) `quantity` free pieces of a lot to another location of the same
    warehouse; returns the lot they went to."""
    quantity = _quantity(quantity)
    to_location = _location(to_location, "to_location")
    source = Lot.objects.select_related("location").get(pk=lot.pk)
    _same_warehouse(source.location, to_location)
    target = _lot_for(
        part_id=source.part_id,
        location=to_location,
        owner_id=source.owner_id,
        customs_status=source.customs_status,
        reference=source.customs_reference,
    )
    locked = _locked_lots(source, target)
    source = locked[source.pk]
    taken = Lot.objects.filter(pk=source.pk, quantity__gte=F("allocated") + quantity).update(
        quantity=F("quantity") - quantity
    )
    if not taken:
        raise ValidationError(
            {
                "quantity": f"Only {source.free} of {source.part.part_number} at {source.location.code} are "
                f"free to move ({source.allocated} allocated, {source.quantity} on hand)."
            }
        )
    Lot.objects.filter(pk=target.pk).update(quantity=F("quantity") + quantity)
    _ledger(
        kind or MovementKind.MOVE,
        actor=actor,
        part_id=source.part_id,
        owner_id=source.owner_id,
        quantity=quantity,
        from_location=source.location,
        to_location=to_location,
        reason=reason,
        customs_status=source.customs_status,
        customs_reference=source.customs_reference,
    )
    target.refresh_from_db()
    return target


def _lot_change(lot: Lot, delta: int, *, kind: str, actor: User | None, reason: str) -> None:
    """Add `delta` (negative: remove) to a lot's on-hand, never below what is allocated."""
    if delta < 0:
        changed = Lot.objects.filter(pk=lot.pk, quantity__gte=F("allocated") - delta).update(
            quantity=F("quantity") + delta
        )
        if not changed:
            lot.refresh_from_db()
            raise ValidationError(
                {
                    "quantity": f"{lot.part.part_number} at {lot.location.code}: {lot.quantity} on hand, "
                    f"{lot.allocated} allocated; taking {-delta} would leave "
                    + ("a negative quantity." if lot.quantity + delta < 0 else "less than is allocated.")
                }
            )
    else:
        Lot.objects.filter(pk=lot.pk).update(quantity=F("quantity") + delta)
    _ledger(
        kind,
        actor=actor,
        part_id=lot.part_id,
        owner_id=lot.owner_id,
        quantity=abs(delta),
        from_location=lot.location if delta < 0 else None,
        to_location=lot.location if delta > 0 else None,
        reason=reason,
        customs_status=lot.customs_status,
        customs_reference=lot.customs_reference,
    )


@transaction.atomic
def lot_adjust(*, lot: Lot, delta: int, actor: User | None, reason: str) -> Lot:
    """Correct a lot's on-hand by `delta` (found or damaged goods), with a reason; never negative,
    never below what is allocated."""
    reason = _reason(reason, "an adjustment")
    if isinstance(delta, bool) or not isinstance(delta, int) or delta == 0 or abs(delta) > QUANTITY_MAX:
        raise ValidationError(
            {"delta": f"An adjustment is a whole number from 1 to {QUANTITY_MAX:,}, up or down."}
        )
    lot = _locked_lots(lot)[lot.pk]
    _lot_change(lot, delta, kind=MovementKind.ADJUSTMENT, actor=actor, reason=reason)
    lot.refresh_from_db()
    return lot


# --- counts ----------------------------------------------------------------------------------


@dataclass
class CountResult:
    """What a count changed: lots corrected (lot, on hand before, counted), units missing (now
    quarantined) and units found here that the books had elsewhere in the warehouse."""

    corrected: list[tuple[Lot, int, int]] = field(default_factory=list)
    missing: list[Unit] = field(default_factory=list)
    found: list[Unit] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not (self.corrected or self.missing or self.found)


@transaction.atomic
def location_count(
    *,
    location: Location,
    serials: list[str],
    quantities: dict[int, int],
    actor: User | None,
    reason: str = "",
) -> CountResult:
    """Book a cycle count of one location: the serials seen there and the counted quantity of each
    lot (by lot id; every lot with stock there must be counted). Lot differences become count
    corrections; a unit the books have here but nobody saw is quarantined as missing; a unit seen
    here that the books have elsewhere in the warehouse is moved here. A negative count, a lot of
    another location, a count below what is allocated or a serial that is not stock of this
    warehouse refuses the whole count."""
    location = Location.objects.select_related("site").get(pk=location.pk)
    reason = (reason or "").strip() or f"Cycle count of {location.code}"
    problems: list[str] = []
    for key, counted in quantities.items():
        if isinstance(counted, bool) or not isinstance(counted, int) or counted < 0:
            problems.append(f"Lot {key}: a count is a whole number, zero or more (not {counted!r}).")
    if problems:
        raise ValidationError({"quantities": problems})
    lots = {
        lot.pk: lot
        for lot in Lot.objects.select_for_update()
        .select_related("part", "location")
        .filter(location=location)
        .order_by("pk")
    }
    for key in quantities:
        if key not in lots:
            problems.append(f"Lot {key} is not at {location.code}.")
    for lot in lots.values():
        counted = quantities.get(lot.pk)
        if counted is None:
            if lot.quantity:
                problems.append(
                    f"{lot.part.part_number} (lot {lot.pk}) was not counted: count every lot here."
                )
        elif counted < lot.allocated:
            problems.append(
                f"{lot.part.part_number} (lot {lot.pk}): {counted} counted but {lot.allocated} allocated; "
                "release the allocations the count cannot cover first."
            )
    if problems:
        raise ValidationError({"quantities": problems})
    seen = {s.lower() for s in _clean_serials(serials)}
    in_warehouse = {
        p.unit.serial.lower(): p
        for p in UnitPlacement.objects.filter(location__site_id=location.site_id)
        .annotate(serial_key=Lower("unit__serial"))
        .filter(serial_key__in=seen)
        .select_related("unit")
    }
    if unknown := sorted(s for s in serials if s.strip().lower() not in in_warehouse):
        raise ValidationError(
            {
                "serials": [
                    f"Serial {s} is not stock of {location.site.name}: receive it first."
                    for s in unknown[:10]
                ]
            }
        )
    result = CountResult()
    for lot in lots.values():
        counted = quantities.get(lot.pk, 0)
        if counted != lot.quantity:
            _lot_change(lot, counted - lot.quantity, kind=MovementKind.COUNT, actor=actor, reason=reason)
            result.corrected.append((lot, lot.quantity, counted))
    for placement in (
        UnitPlacement.objects.filter(location=location).select_related("unit").order_by("unit_id")
    ):
        if placement.unit.serial.lower() in seen:
            continue
        unit = placement.unit
        missing = f"{reason}: not found at {location.code}"
        # An already quarantined unit stays so; the count's row records that it was missed again.
        result.missing.append(
            unit_transition(
                unit=unit,
                target=Status.QUARANTINED,
                action=unit_flow.Action.COUNT,
                actor=actor,
                reason=missing,
            )
        )
    for placement in in_warehouse.values():
        if placement.location_id != location.pk:
            unit = placement.unit
            result.found.append(
                unit_transition(
                    unit=unit,
                    target=unit.status,
                    actor=actor,
                    reason=f"{reason}: found at {location.code}",
                    action=unit_flow.Action.COUNT,
                    to_location=location,
                )
            )
    return result


# --- allocation, picking, shipping -------------------------------------------------------------


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
def units_pick(*, units: list[Unit], actor: User | None, reason: str = "") -> list[Unit]:
    """Pick allocated units (allocated → picked), in primary-key order."""
    return [
        unit_transition(
            unit=unit, target=Status.PICKED, action=unit_flow.Action.PICK, actor=actor, reason=reason
        )
        for unit in sorted(units, key=lambda u: u.pk)
    ]


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


# --- the shipment flow's hooks -----------------------------------------------------------------


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
