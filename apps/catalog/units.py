"""Units: one row per serialised box. Shipments, the warehouse and clusters find or make a unit
here by its part and serial, never a free string of their own; and which parts an organisation's
goods may be of (`parts_for_owner`), whoever chooses the part."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.db.models.functions import Lower

from apps.core.scoping import VIEW

from .models import Part, Unit


def parts_for_owner(owner_id: int) -> QuerySet[Part]:
    """The parts an organisation's units and lots may be of: its own catalogue's and the master
    catalogue's (the operator's). Never a third organisation's private part, whoever picks it (the
    operator's staff see every catalogue): the owner would read that part's number, name and
    value through its own stock."""
    return Part.objects.filter(Part.org_scope_q(owner_id, VIEW))


def part_for_owner_problem(part: Part, owner) -> str:
    """Why `part` cannot be `owner`'s goods, or "" when it can (`parts_for_owner`'s rule)."""
    if part.owner_id == owner.pk or parts_for_owner(owner.pk).filter(pk=part.pk).exists():
        return ""
    return (
        f"{part.part_number} is another organisation's part: goods of {owner} are a part of its own "
        "catalogue or of the master catalogue."
    )


def units_for(*, part: Part, serials: list[str], owner_id: int, field: str = "serials") -> list[Unit]:
    """The units of `part` with these serials, in the given order, locked for the caller's
    transaction; those not known yet are made (owned by `owner_id`, expected).

    A serial is a box's whatever its case ("qt0001" is "QT0001"). A serial the manufacturer
    already uses for another part is refused: it is another box, or a typing slip."""
    if not serials:
        return []
    wanted = {serial.lower(): serial for serial in serials}
    same_maker = Unit.objects.annotate(serial_key=Lower("serial")).filter(
        manufacturer_id=part.manufacturer_id
    )
    known = {unit.serial_key for unit in same_maker.filter(serial_key__in=wanted).only("pk")}
    missing = [Unit(part=part, manufacturer_id=part.manufacturer_id, serial=serial, owner_id=owner_id)
               for key, serial in wanted.items() if key not in known]  # fmt: skip
    problems = []
    for unit in missing:
        try:
            unit.full_clean(exclude=["part", "manufacturer", "owner"], validate_constraints=False)
        except ValidationError as exc:
            problems += [f"Serial {unit.serial!r}: {message}" for message in exc.messages]
    if problems:
        raise ValidationError({field: problems[:10]})
    # Two people entering the same new serial at once: the second insert is skipped, not an error,
    # and both then lock the one row.
    Unit.objects.bulk_create(missing, ignore_conflicts=True)
    units = {
        unit.serial_key: unit
        for unit in same_maker.filter(serial_key__in=wanted)
        .select_related("part")
        .select_for_update(of=("self",))
    }
    other_parts = [unit for unit in units.values() if unit.part_id != part.pk]
    if other_parts:
        raise ValidationError(
            {
                field: [
                    f"Serial {unit.serial} is already known as a {unit.part.part_number}, not a "
                    f"{part.part_number}."
                    for unit in other_parts[:10]
                ]
            }
        )
    return [units[serial.lower()] for serial in serials]
