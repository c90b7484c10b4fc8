"""Stock into and around a warehouse: locations, receiving units and lot quantities into a
location, put-away and moves within a warehouse, adjustments of a lot, and cycle counts. Each is
one transaction and writes its rows of the movement ledger in it; a refusal is a `ValidationError`
naming the field (and the serial or lot) and leaves nothing written.

Stock changes by conditional updates (`filter(quantity__gte=…).update(quantity=F(…) - n)`) or
under row locks taken in primary-key order, never by read-modify-write, and the database's check
constraints refuse a negative on-hand or more allocated than on hand (style.md)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Lower

from apps.accounts.models import Organisation, User
from apps.catalog.models import Part, Unit, UnitStatus
from apps.catalog.units import units_for
from apps.shipments.models import Shipment

from ..engines import unit_flow
from ..engines.unit_flow import Status
from ..models import QUANTITY_MAX, Location, Lot, MovementKind, UnitPlacement
from .ledger import (
    _clean_serials,
    _ledger,
    _location,
    _locked_lots,
    _lot_change,
    _lot_for,
    _quantity,
    _reason,
)
from .units import unit_transition, whereabouts

# --- locations --------------------------------------------------------------------------------


@transaction.atomic
def location_create(*, site, zone: str, aisle: str = "", rack: str = "", bin: str = "") -> Location:  # noqa: A002
    """A new location (zone, aisle, rack, bin) in a warehouse site."""
    location = Location(site=site, zone=zone, aisle=aisle, rack=rack, bin=bin)
    location.full_clean()
    location.save()
    return location


# --- receiving --------------------------------------------------------------------------------


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


# --- counts -----------------------------------------------------------------------------------


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
