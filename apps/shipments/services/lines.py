"""A shipment's lines and their serial numbers: trade data copied from the part, a line's own
shipper or exporter of record, and one box on one live shipment at a time."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, ProtectedError, Sum

from apps.accounts.models import User
from apps.catalog.models import Part, Unit, UnitStatus
from apps.catalog.units import units_for
from apps.core.validators import text_problem

from .. import hooks
from ..models import LineSerial, PartyRole, Shipment, ShipmentLine, ShipmentStatus
from .base import require_draft, validated_save
from .parties import check_party


@transaction.atomic
def line_add(
    *,
    shipment: Shipment,
    part: Part,
    quantity: int,
    fields: dict[str, Any] | None = None,
    serials: list[str] | None = None,
    actor: User | None = None,
) -> ShipmentLine:
    """Add a line; trade data is copied from the part unless given (and stays editable)."""
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    require_draft(shipment, "lines change")
    fields = dict(fields or {})
    _check_line_parties(shipment, fields, actor)
    fields = line_trade_fields(shipment, part, fields)
    next_number = (shipment.lines.aggregate(n=Max("line_number"))["n"] or 0) + 1
    line = validated_save(
        ShipmentLine(shipment=shipment, part=part, line_number=next_number, quantity=quantity), **fields
    )
    if serials:
        serials_set(line=line, serials=serials)
    hooks.changed(shipment, f"Line {line.line_number} ({part}) was added.", actor)
    return line


def line_trade_fields(shipment: Shipment, part: Part, fields: dict[str, Any]) -> dict[str, Any]:
    """The per-line rule of one line and of lines in bulk (`lines_bulk`): the unit value in the
    shipment's currency (the part's when it is priced in it, else it must be given), and the
    description, origin and HS code copied from the part unless given. Reads no row."""
    fields = dict(fields)
    if "unit_value" not in fields or fields["unit_value"] is None:
        if part.currency != shipment.currency:
            raise ValidationError(
                {
                    "unit_value": (
                        f"{part} is priced in {part.currency} but the shipment is in {shipment.currency}; "
                        "give the unit value in the shipment currency."
                    )
                }
            )
        fields["unit_value"] = part.unit_value
    copied = {
        "description": trade_description(part),
        "country_of_origin": part.country_of_origin,
        "hs_code": part.hs_code,
    }
    for key, value in copied.items():
        if not fields.get(key):
            fields[key] = value
    return fields


LINE_PARTY_ROLES = {"shipper": PartyRole.SHIPPER, "exporter_of_record": PartyRole.EXPORTER_OF_RECORD}


def _check_line_parties(
    shipment: Shipment, fields: dict[str, Any], actor: User | None, line: ShipmentLine | None = None
) -> None:
    """A line's own shipper or exporter of record is named as a shipment's party is: by the owner
    or the operator, an active organisation connected with the owner (`check_party`). Keeping the
    one already on the line is never refused."""
    for field, role in LINE_PARTY_ROLES.items():
        organisation = fields.get(field)
        if organisation is None or (line is not None and getattr(line, f"{field}_id") == organisation.pk):
            continue
        try:
            check_party(shipment, role, organisation, actor)
        except ValidationError as exc:
            raise ValidationError({field: exc.message_dict["organisation"]}) from exc


def trade_description(part: Part) -> str:
    """Make, model and part number, as a commercial invoice describes goods."""
    text = part.name
    if part.manufacturer.name.lower() not in text.lower():
        text = f"{part.manufacturer.name} {text}"
    if part.part_number.lower() not in text.lower():
        text = f"{text}, P/N {part.part_number}"
    return text[:300]


@transaction.atomic
def line_update(*, line: ShipmentLine, fields: dict[str, Any], actor: User | None = None) -> ShipmentLine:
    line = ShipmentLine.objects.select_for_update().select_related("shipment").get(pk=line.pk)
    require_draft(line.shipment, "lines change")
    _check_line_parties(line.shipment, fields, actor, line)
    if "quantity" in fields:
        packed = line.package_items.aggregate(n=Sum("quantity"))["n"] or 0
        serial_count = line.serials.count()
        if fields["quantity"] < max(packed, serial_count):
            raise ValidationError(
                {
                    "quantity": (
                        f"Line {line.line_number} already has {packed} packed and {serial_count} serial "
                        "numbers; unpack or remove serials first."
                    )
                }
            )
    declared = line.country_of_origin
    before = {name: getattr(line, name) for name in fields}
    line = validated_save(line, **fields)
    if changed := [name for name, value in before.items() if getattr(line, name) != value]:
        labels = ", ".join(str(ShipmentLine._meta.get_field(name).verbose_name) for name in changed)
        hooks.changed(line.shipment, f"Line {line.line_number} changed ({labels}).", actor)
    if line.country_of_origin != declared:
        # A correction of the line's declaration: the units it declared (never received, on no
        # other line) follow; a unit received from its own inbound line keeps that origin.
        declared_here = Unit.objects.filter(
            line_serials__line=line, status=UnitStatus.EXPECTED, country_of_origin=declared
        ).exclude(line_serials__line__in=ShipmentLine.objects.exclude(pk=line.pk))
        declared_here.update(country_of_origin=line.country_of_origin)
    return line


@transaction.atomic
def line_remove(*, line: ShipmentLine) -> None:
    require_draft(line.shipment, "lines change")
    try:
        line.delete()
    except ProtectedError as exc:
        # Another app's record holds on to the line (warehouse stock allocated to it …): refused
        # with what holds it, never a 500.
        held_by = ", ".join(sorted({str(obj._meta.verbose_name_plural) for obj in exc.protected_objects}))
        message = f"Line {line.line_number} is still referred to by {held_by}: release those first."
        raise ValidationError({"line": message}) from exc
    hooks.changed(line.shipment, f"Line {line.line_number} ({line.part}) was removed.")


@transaction.atomic
def serials_set(*, line: ShipmentLine, serials: list[str]) -> list[LineSerial]:
    """Replace a line's serial numbers. At most `quantity` of them, no duplicates, no blanks; each
    is a unit (`catalog.Unit`) that no other live shipment carries (one box, one place)."""
    cleaned = [s.strip() for s in serials]
    errors = serial_problems(line.part, cleaned, line.quantity)
    if errors:
        raise ValidationError({"serials": errors})
    units = units_for(part=line.part, serials=cleaned, owner_id=goods_owner_id(line))
    _refuse_units_elsewhere(line, units)
    # A unit first named on this line takes the line's declared origin; one already declared (an
    # outbound line of units received at a hub) keeps its own: origin belongs to the box.
    if undeclared := [unit for unit in units if not unit.country_of_origin]:
        Unit.objects.filter(pk__in=[unit.pk for unit in undeclared]).update(
            country_of_origin=line.country_of_origin
        )
        for unit in undeclared:
            unit.country_of_origin = line.country_of_origin
    kept = set(line.serials.values_list("unit_id", flat=True))
    line.serials.exclude(unit__in=units).delete()
    LineSerial.objects.bulk_create(
        [LineSerial(line=line, unit=unit) for unit in units if unit.pk not in kept]
    )
    return list(line.serials.select_related("unit"))


def serial_problems(part: Part, serials: list[str], quantity: int) -> list[str]:
    """What is wrong with a line's serial numbers on their own (one line's and lines in bulk): a
    part that is not serialised, blanks, repeats (whatever the case), more serials than units, an
    invisible character. Whether each box is free is `_refuse_units_elsewhere`'s."""
    errors = []
    if not part.is_serialised:
        errors.append(f"{part} is not serialised.")
    if any(not s for s in serials):
        errors.append("Serial numbers may not be blank.")
    counts = Counter(s.lower() for s in serials)  # "qt1" and "QT1" are one box
    duplicates = sorted({s for s in serials if counts[s.lower()] > 1})
    if duplicates:
        errors.append(f"Repeated serial numbers: {', '.join(duplicates[:10])}.")
    if len(serials) > quantity:
        errors.append(f"{len(serials)} serial numbers for a quantity of {quantity}.")
    errors.extend(
        f"Serial number {s[:40]!r}: {problem}" for s in serials if (problem := text_problem(s, "identifier"))
    )
    return errors


# A unit on a shipment that is still under way (or being planned) is not free for another one.
LIVE_STATUSES = [
    status for status in ShipmentStatus if status not in (ShipmentStatus.CANCELLED, ShipmentStatus.DELIVERED)
]


def _refuse_units_elsewhere(line: ShipmentLine, units: list) -> None:
    """A box is on one live shipment at a time: the same GPU server on two shipments is a mistake
    (or worse). Another organisation's shipment is not named to a partner who cannot see it."""
    taken = (
        LineSerial.objects.filter(unit__in=units, line__shipment__status__in=LIVE_STATUSES)
        .exclude(line__shipment_id=line.shipment_id)
        .select_related("unit", "line__shipment")
    )
    problems = [
        f"Serial {row.unit.serial} is already on "
        + (
            f"{row.line.shipment.reference} (line {row.line.line_number})"
            if row.line.shipment.owner_id == line.shipment.owner_id
            else "another organisation's shipment"
        )
        + "; remove it there first."
        for row in taken[:10]
    ]
    if problems:
        raise ValidationError({"serials": problems})


def goods_owner_id(line: ShipmentLine) -> int:
    """Whose the goods of a line are (its new units, its pieces received into a warehouse): the
    line's own shipper, else the shipment's shipper, else its owner."""
    if line.shipper_id:
        return line.shipper_id
    shipper = (
        line.shipment.parties.filter(role=PartyRole.SHIPPER).values_list("organisation_id", flat=True).first()
    )
    return shipper or line.shipment.owner_id
