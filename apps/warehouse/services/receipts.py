"""Receiving an inbound shipment (or one leg of a consolidation) against its advance notice — its
lines and their serials — and resolving what did not match.

What was scanned and expected is received into stock (`stock.units_receive` / `lot_receive`:
the ledger, customs status by the site); a damaged unit is received and quarantined; a missing
serial, an extra one, or a lot counted short or over is a discrepancy that stays open until a
person resolves it. The shipment's status moves through the shipments' own event service (an
arrival at a hub, or the delivery at its destination), never around it.

A leg (or a shipment without legs) is received once: a box that turns up later is the open
"missing" discrepancy's, resolved as found. A unit is received only where the books expect it to
arrive: a unit the receipt expects but that is in a warehouse already, or shipped on towards
another place, refuses the receipt, naming where it is (`stock.receive_problems`).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils import timezone

from apps.accounts.models import Organisation, User
from apps.catalog.models import Unit, UnitStatus
from apps.core.sequences import next_reference
from apps.shipments import services as shipments
from apps.shipments.models import EventCode, Leg, LineSerial, Shipment, ShipmentStatus
from apps.shipments.services import goods_owner_id

from ..engines.unit_flow import LABELS, Action, Status
from ..models import Discrepancy, DiscrepancyKind, Location, Receipt, ReceiptStatus
from .stock import lot_receive, receive_problems, units_receive
from .units import unit_transition, whereabouts

# A shipment is received once it has left: not while it is planned, held or cancelled.
RECEIVABLE = frozenset(
    {ShipmentStatus.BOOKED, ShipmentStatus.IN_TRANSIT, ShipmentStatus.AT_CUSTOMS, ShipmentStatus.CLEARED}
)


def _serial_list(serials, field: str) -> list[str]:
    cleaned = [s.strip() for s in serials or () if s and s.strip()]
    seen: set[str] = set()
    repeated = sorted({s for s in cleaned if s.lower() in seen or seen.add(s.lower())})
    if repeated:
        raise ValidationError({field: f"Scanned twice: {', '.join(repeated[:10])}."})
    return cleaned


@transaction.atomic
def receipt_record(
    *,
    shipment: Shipment,
    location: Location,
    scanned: list[str],
    actor: User | None,
    damaged: list[str] | None = None,
    counted: dict[int, int] | None = None,
    leg: Leg | None = None,
    customs_reference: str = "",
    received_at: dt.datetime | None = None,
) -> Receipt:
    """Receive `shipment` (or its inbound `leg`) at `location`'s warehouse: `scanned` serials,
    `damaged` serials (received into quarantine), `counted` pieces per non-serialised line id."""
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    if shipment.status not in RECEIVABLE:
        raise ValidationError(
            {"shipment": f"{shipment.reference} is {shipment.get_status_display().lower()}: a shipment is "
             "received once it has left (booked, in transit, at customs or cleared)."}
        )  # fmt: skip
    site_id = location.site_id
    if leg is not None:
        if leg.shipment_id != shipment.pk:
            raise ValidationError({"leg": f"Leg {leg.sequence} is not a leg of {shipment.reference}."})
        if leg.destination_id != site_id:
            raise ValidationError(
                {"leg": f"Leg {leg.sequence} ends at {leg.destination}, not at {location.site}."}
            )
        lines = list(leg.lines.select_related("part")) or list(shipment.lines.select_related("part"))
    else:
        if shipment.destination_id != site_id:
            raise ValidationError(
                {"location": f"{shipment.reference} goes to {shipment.destination}, not to {location.site}: "
                 "receive the leg that ends here."}
            )  # fmt: skip
        lines = list(shipment.lines.select_related("part"))
    _received_once(shipment, leg, location, scanned=list(scanned or ()) + list(damaged or ()))
    damaged_list = _serial_list(damaged, "damaged")
    # A serial both scanned and marked damaged is one box, damaged: not scanned twice.
    damaged_keys = {serial.lower() for serial in damaged_list}
    scanned_list = _serial_list(
        [s for s in scanned or () if s.strip().lower() not in damaged_keys], "scanned"
    )
    scanned_list += damaged_list
    counted = {int(k): v for k, v in (counted or {}).items()}
    if any(int(v) < 0 for v in counted.values()):
        raise ValidationError({"counted": "A count cannot be negative."})
    line_ids = {line.pk for line in lines}
    if unknown := sorted(set(counted) - line_ids):
        raise ValidationError({"counted": f"Not lines of this receipt: {', '.join(map(str, unknown))}."})

    expected = {
        row.unit.serial.lower(): row
        for row in LineSerial.objects.filter(line_id__in=line_ids).select_related("unit", "line__part")
    }
    seen = {serial.lower(): serial for serial in scanned_list}
    arriving = [row.unit for key, row in expected.items() if key in seen]
    if problems := receive_problems(arriving, location=location, arriving_on=shipment):
        raise ValidationError({"scanned": problems[:10]})
    receipt = Receipt.objects.create(
        reference=next_reference("RCV"),
        shipment=shipment,
        leg=leg,
        location=location,
        customs_reference=customs_reference.strip(),
        received_by=actor,
        received_at=received_at or timezone.now(),
        expected_units=len(expected),
    )
    problems: list[Discrepancy] = []

    # Serialised: what was expected and scanned goes into stock, grouped by part, owner and the
    # origin declared on the inbound line (recorded on each unit).
    groups: dict[tuple[int, int, str], list[LineSerial]] = defaultdict(list)
    for key, row in expected.items():
        if key in seen:
            groups[(row.line.part_id, row.unit.owner_id, row.line.country_of_origin)].append(row)
        else:
            problems.append(
                Discrepancy(receipt=receipt, kind=DiscrepancyKind.MISSING, line=row.line, part=row.line.part,
                            serial=row.unit.serial, unit=row.unit)
            )  # fmt: skip
    reason = f"Receipt {receipt.reference} of {shipment.reference}"
    owners = {o.pk: o for o in Organisation.objects.filter(pk__in={owner for _, owner, _ in groups})}
    received = 0
    for (_, owner_id, origin), rows in groups.items():
        units_receive(
            location=location,
            part=rows[0].line.part,
            serials=[row.unit.serial for row in rows],
            owner=owners[owner_id],
            actor=actor,
            customs_reference=customs_reference,
            reason=reason,
            country_of_origin=origin,
            arriving_on=shipment,
        )
        received += len(rows)
    for serial in damaged_list:
        row = expected.get(serial.lower())
        if row is None:
            continue  # an extra one: recorded below, not taken into stock
        unit_transition(
            unit=row.unit,
            target=Status.QUARANTINED,
            action=Action.QUARANTINE,
            actor=actor,
            reason=f"Damaged on {reason.lower()}",
        )
        problems.append(
            Discrepancy(receipt=receipt, kind=DiscrepancyKind.DAMAGED, line=row.line, part=row.line.part,
                        serial=row.unit.serial, unit=row.unit)
        )  # fmt: skip
    extras = {key: serial for key, serial in seen.items() if key not in expected}
    known = _known_elsewhere(extras, shipment, owners={row.unit.owner_id for row in expected.values()})
    for key, serial in extras.items():
        unit, note = known.get(key, (None, ""))
        problems.append(
            Discrepancy(receipt=receipt, kind=DiscrepancyKind.EXTRA, serial=serial, unit=unit, note=note)
        )

    # Non-serialised lines: the pieces counted go into stock; short or over is a discrepancy.
    for line in lines:
        if line.part.is_serialised:
            continue
        count = int(counted.get(line.pk, 0))
        if count:
            lot_receive(
                location=location,
                part=line.part,
                quantity=count,
                owner=Organisation.objects.get(pk=goods_owner_id(line)),
                actor=actor,
                customs_reference=customs_reference,
                reason=reason,
            )
        if count != line.quantity:
            kind = DiscrepancyKind.SHORT if count < line.quantity else DiscrepancyKind.OVER
            problems.append(
                Discrepancy(
                    receipt=receipt, kind=kind, line=line, part=line.part, quantity=abs(line.quantity - count)
                )
            )
    Discrepancy.objects.bulk_create(problems)
    receipt.received_units = received
    receipt.status = ReceiptStatus.OPEN if problems else ReceiptStatus.CLOSED
    receipt.save(update_fields=["received_units", "status", "updated_at"])

    # The shipment's own record: delivered at its destination, or arrived at the hub.
    if actor is not None:
        delivered = shipment.destination_id == site_id
        try:
            shipments.event_record(
                shipment=shipment,
                actor=actor,
                code=EventCode.DELIVERED if delivered else EventCode.RECEIVED_AT_WAREHOUSE,
                occurred_at=receipt.received_at,
                location=str(location.site),
                remarks=f"{receipt.reference}: {received} of {len(expected)} units received"
                + (f", {len(problems)} discrepancies open." if problems else "."),
                leg=leg,
            )
        except shipments.TransitionRefused as exc:
            raise ValidationError({"shipment": exc.reasons}) from exc
    return receipt


def _received_once(shipment: Shipment, leg: Leg | None, location: Location, *, scanned: list[str]) -> None:
    """Refuse a second receipt of the same leg (or of a shipment at its destination), naming the
    receipt that took it; a late box of that receipt is its open "missing" discrepancy's, resolved
    as found. The caller holds the shipment's row lock, so two receipts of one leg queue here, and
    the database's unique constraints back it."""
    earlier = Receipt.objects.filter(shipment=shipment).select_related("location__site", "leg")
    if leg is not None:
        earlier = earlier.filter(Q(leg=leg) | Q(leg__isnull=True, location__site_id=leg.destination_id))
        what, field = f"Leg {leg.sequence} of {shipment.reference}", "leg"
    else:
        earlier = earlier.filter(Q(leg__isnull=True) | Q(leg__destination_id=shipment.destination_id))
        what, field = shipment.reference, "shipment"
    receipt = earlier.order_by("received_at", "pk").first()
    if receipt is None:
        return
    problems = [
        f"{what} was received already by {receipt.reference} ({receipt.received_at:%Y-%m-%d %H:%M}, at "
        f"{receipt.location.site.name}): a leg is received once."
    ]
    late = {serial.strip().lower() for serial in scanned if serial and serial.strip()}
    missing = (
        Discrepancy.objects.filter(
            receipt__in=earlier, kind=DiscrepancyKind.MISSING, resolved_at__isnull=True
        )
        .annotate(key=Lower("serial"))
        .filter(key__in=late)
        .select_related("receipt")
        .order_by("serial")
    )
    problems += [
        f"Serial {d.serial} is missing on {d.receipt.reference}: resolve that discrepancy as found, on "
        f"{d.receipt.reference}'s page, to receive it."
        for d in missing[:10]
    ]
    raise ValidationError({field: problems})


def _known_elsewhere(extras: dict[str, str], shipment: Shipment, *, owners: set[int]) -> dict[str, tuple]:
    """For extra serials that are known units: the unit and where the books have it, for a unit of
    the shipment's owner or of an owner of the units it brings; another organisation's unit is
    only said to be known (its place is not the reader's business)."""
    if not extras:
        return {}
    owners = owners | {shipment.owner_id}
    found: dict[str, list[Unit]] = defaultdict(list)
    for unit in (
        Unit.objects.annotate(key=Lower("serial"))
        .filter(key__in=list(extras))
        .select_related("placement__location__site")
        .order_by("pk")
    ):
        found[unit.key].append(unit)
    known = {}
    for key, units in found.items():
        if len(units) > 1:
            known[key] = (None, f"{len(units)} known units carry serial {extras[key]}: check the maker.")
        elif units[0].owner_id not in owners:
            known[key] = (None, f"Serial {extras[key]} is another organisation's unit.")
        else:
            known[key] = (units[0], f"Known unit {units[0].serial}: {_where(units[0])}")
    return known


def _where(unit: Unit) -> str:
    placement = getattr(unit, "placement", None)
    where = whereabouts(unit, placement)
    status = LABELS[Status(unit.status)]
    if where.site_id is not None:
        return f"{status} at {where.site} ({placement.location.code})."
    bound = where.bound_for or "a place its route does not name"
    if where.left:
        return f"it left {where.left} on {where.shipment} for {bound}."
    if where.shipment:
        return f"expected on {where.shipment} for {bound}."
    return f"{status}, on no live shipment."


@transaction.atomic
def discrepancy_resolve(
    *, discrepancy: Discrepancy, actor: User, resolution: str, found: bool = False, release: bool = False
) -> Discrepancy:
    """Close one discrepancy with a note. `found`: a missing unit turned up, received now into the
    receipt's location. `release`: a damaged unit passed inspection, out of quarantine."""
    discrepancy = (
        Discrepancy.objects.select_for_update(
            of=("self",)
        )  # the unit is an outer join: not lockable on PostgreSQL
        .select_related("receipt__location", "receipt__shipment", "unit")
        .get(pk=discrepancy.pk)
    )
    resolution = (resolution or "").strip()
    if not discrepancy.is_open:
        raise ValidationError({"resolution": f"{discrepancy} was resolved already."})
    if not resolution:
        raise ValidationError({"resolution": "Say how it was resolved: it stays with the receipt."})
    if found and discrepancy.kind != DiscrepancyKind.MISSING:
        raise ValidationError({"found": "Only a missing unit can be found."})
    if release and discrepancy.kind != DiscrepancyKind.DAMAGED:
        raise ValidationError({"release": "Only a damaged unit is released from quarantine."})
    receipt = discrepancy.receipt
    unit = discrepancy.unit
    if found:
        units_receive(
            location=receipt.location,
            part=discrepancy.part,
            serials=[unit.serial],
            owner=unit.owner,
            actor=actor,
            customs_reference=receipt.customs_reference,
            reason=f"Found after receipt {receipt.reference}: {resolution}",
            arriving_on=receipt.shipment,
        )
        Receipt.objects.filter(pk=receipt.pk).update(received_units=F("received_units") + 1)
    if release:
        unit.refresh_from_db()
        if unit.status != UnitStatus.QUARANTINED:
            raise ValidationError({"release": f"Serial {unit.serial} is not in quarantine."})
        unit_transition(
            unit=unit, target=Status.AVAILABLE, action=Action.RELEASE, actor=actor, reason=resolution
        )
    discrepancy.resolution = resolution
    discrepancy.resolved_by = actor
    discrepancy.resolved_at = timezone.now()
    discrepancy.save(update_fields=["resolution", "resolved_by", "resolved_at", "updated_at"])
    if not receipt.discrepancies.filter(resolved_at__isnull=True).exists():
        Receipt.objects.filter(pk=receipt.pk).update(status=ReceiptStatus.CLOSED)
    return discrepancy
