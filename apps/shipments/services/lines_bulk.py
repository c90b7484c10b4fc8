"""Lines in bulk: a pasted or uploaded CSV, or a partner's JSON list, added to a draft shipment
all or nothing, each row checked by the rules one line is checked by (`lines.line_trade_fields`,
the model's validation, `lines.serial_problems`, one box on one live shipment), every problem
named by its row and field before anything is written.

The reads do not grow with the rows: the parts are read once (by part number, among those the
user may choose), the known units of every serial once, the boxes on other live shipments once;
lines, serials and their audit events are written by `bulk_create`; units are found or made
once per part (`catalog.units.units_for`).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.db.models.functions import Lower

from apps.accounts.models import User
from apps.catalog.models import Part, Unit
from apps.catalog.units import units_for
from apps.core import audit

from .. import hooks
from ..engines.line_rows import LineRow, RowProblem
from ..models import LineSerial, PartyRole, Shipment, ShipmentLine
from .base import require_draft
from .lines import LIVE_STATUSES, line_trade_fields, serial_problems

# Foreign keys are chosen here (parts among the user's, the shipment locked): not looked up again
# one query per row by full_clean. Line numbers are given in sequence under the shipment's lock.
_NOT_RECHECKED = ["shipment", "part", "shipper", "exporter_of_record"]


class LineRowsRefused(Exception):
    """Rows with problems: nothing was added. `problems` name each row and field."""

    def __init__(self, problems: list[RowProblem]):
        self.problems = sorted(problems, key=lambda p: (p.row, p.field))
        rows = len({p.row for p in self.problems})
        super().__init__(f"No line was added: {rows} row{'s' if rows != 1 else ''} with problems.")
        self.message = str(self)

    def as_dict(self) -> dict:
        return {"detail": self.message, "rows": [p.as_dict() for p in self.problems]}


def _parts_by_number(rows: list[LineRow], actor: User) -> dict[str, list[Part]]:
    """The active parts the user may choose, by lower-cased part number, in one query."""
    numbers = {row.part_number.lower() for row in rows}
    parts = (
        Part.objects.visible_to(actor)
        .filter(is_active=True)
        .annotate(number_key=Lower("part_number"))
        .filter(number_key__in=numbers)
        .select_related("manufacturer")
    )
    found: dict[str, list[Part]] = defaultdict(list)
    for part in parts:
        found[part.number_key].append(part)
    return found


@transaction.atomic
def lines_add_bulk(
    *, shipment: Shipment, rows: list[LineRow], actor: User, read_problems: list[RowProblem] = ()
) -> list[ShipmentLine]:
    """Add every row as a line of the draft `shipment`, or none: LineRowsRefused names each row's
    problems (part unknown or ambiguous, the line's validation, serials) before anything is written.
    `read_problems` are those found reading the rows (`engines.line_rows`): the other rows are
    still checked, so one answer names every problem."""
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    require_draft(shipment, "lines change")
    if not rows and not read_problems:
        raise LineRowsRefused([RowProblem(0, "lines", "No lines given.")])
    problems: list[RowProblem] = list(read_problems)
    parts = _parts_by_number(rows, actor)
    next_number = (shipment.lines.aggregate(n=Max("line_number"))["n"] or 0) + 1
    planned: list[tuple[LineRow, ShipmentLine]] = []
    for row in rows:
        found = parts.get(row.part_number.lower(), [])
        if not found:
            problems.append(
                RowProblem(row.row, "part_number", f"No active part {row.part_number!r} in the catalogue.")
            )
            continue
        if len(found) > 1:
            makers = ", ".join(sorted(part.manufacturer.name for part in found))
            problems.append(
                RowProblem(
                    row.row,
                    "part_number",
                    f"{len(found)} parts are numbered {row.part_number!r} ({makers}): "
                    "add this line on its own.",
                )
            )
            continue
        part = found[0]
        line = ShipmentLine(shipment=shipment, part=part, line_number=next_number + len(planned))
        try:
            given = {} if row.unit_value is None else {"unit_value": row.unit_value}
            for name, value in line_trade_fields(shipment, part, given).items():
                setattr(line, name, value)
            line.quantity = row.quantity
            line.full_clean(exclude=_NOT_RECHECKED, validate_unique=False, validate_constraints=False)
        except ValidationError as exc:
            problems += [
                RowProblem(row.row, name if name != "__all__" else "line", message)
                for name, messages in exc.message_dict.items()
                for message in messages
            ]
            continue
        row.serials = [s.strip() for s in row.serials]
        if row.serials:  # as one line: serials are checked when given
            problems += [
                RowProblem(row.row, "serials", m) for m in serial_problems(part, row.serials, row.quantity)
            ]
        planned.append((row, line))
    problems += _serial_conflicts(shipment, planned)
    if problems:
        raise LineRowsRefused(problems)
    return _write(shipment, planned, actor)


def _serial_conflicts(shipment: Shipment, planned: list[tuple[LineRow, ShipmentLine]]) -> list[RowProblem]:
    """Serials given on two rows, known as another part's, or on another live shipment: by row, in
    two queries for every row."""
    problems: list[RowProblem] = []
    first_row: dict[tuple[int, str], int] = {}
    wanted: dict[tuple[int, str], tuple[LineRow, Part]] = {}
    for row, line in planned:
        for serial in row.serials:
            key = (line.part.manufacturer_id, serial.lower())
            if key in first_row and first_row[key] != row.row:
                problems.append(
                    RowProblem(row.row, "serials", f"Serial {serial} is on row {first_row[key]} too.")
                )
                continue
            first_row.setdefault(key, row.row)
            wanted[key] = (row, line.part)
    if not wanted:
        return problems
    keys = {serial for _maker, serial in wanted}
    known = (
        Unit.objects.annotate(serial_key=Lower("serial"))
        .filter(serial_key__in=keys)
        .values_list("pk", "manufacturer_id", "serial_key", "serial", "part_id", "part__part_number")
    )
    unit_keys: dict[int, tuple[int, str]] = {}
    for pk, maker, key, serial, part_id, part_number in known:
        if (maker, key) not in wanted:
            continue  # another manufacturer's box with the same serial: another box
        row, part = wanted[(maker, key)]
        unit_keys[pk] = (maker, key)
        if part_id != part.pk:
            problems.append(
                RowProblem(
                    row.row,
                    "serials",
                    f"Serial {serial} is already known as a {part_number}, not a {part.part_number}.",
                )
            )
    if unit_keys:
        taken = (
            LineSerial.objects.filter(unit_id__in=unit_keys, line__shipment__status__in=LIVE_STATUSES)
            .exclude(line__shipment_id=shipment.pk)
            .values_list(
                "unit_id",
                "unit__serial",
                "line__shipment__reference",
                "line__shipment__owner_id",
                "line__line_number",
            )
        )
        for unit_id, serial, reference, owner_id, number in taken:
            row, _part = wanted[unit_keys[unit_id]]
            where = (
                f"{reference} (line {number})"
                if owner_id == shipment.owner_id
                else "another organisation's shipment"
            )
            problems.append(
                RowProblem(
                    row.row, "serials", f"Serial {serial} is already on {where}; remove it there first."
                )
            )
    return problems


def _write(
    shipment: Shipment, planned: list[tuple[LineRow, ShipmentLine]], actor: User
) -> list[ShipmentLine]:
    lines = ShipmentLine.objects.bulk_create([line for _row, line in planned])
    audit.record_created_many(lines)
    owner_id = (
        shipment.parties.filter(role=PartyRole.SHIPPER).values_list("organisation_id", flat=True).first()
        or shipment.owner_id
    )
    by_part: dict[int, list[tuple[LineRow, ShipmentLine]]] = defaultdict(list)
    for row, line in zip((row for row, _line in planned), lines, strict=True):
        if row.serials:
            by_part[line.part_id].append((row, line))
    links: list[LineSerial] = []
    declare: dict[str, list[int]] = defaultdict(list)
    for pairs in by_part.values():
        part = pairs[0][1].part
        units = iter(
            units_for(part=part, serials=[s for row, _line in pairs for s in row.serials], owner_id=owner_id)
        )
        for row, line in pairs:
            for _serial in row.serials:
                unit = next(units)
                links.append(LineSerial(line=line, unit=unit))
                # A unit first named here takes its line's declared origin (as serials_set does).
                if not unit.country_of_origin:
                    declare[str(line.country_of_origin)].append(unit.pk)
    for country, unit_ids in declare.items():
        Unit.objects.filter(pk__in=unit_ids).update(country_of_origin=country)
    LineSerial.objects.bulk_create(links)
    units = Counter()
    for line in lines:
        units[line.part.part_number] += line.quantity
    parts = ", ".join(f"{n:,} × {number}" for number, n in units.most_common(5))
    more = f" and {len(units) - 5} more parts" if len(units) > 5 else ""
    hooks.changed(
        shipment,
        f"Lines {lines[0].line_number}–{lines[-1].line_number} were added in bulk ({parts}{more}).",
        actor,
    )
    return lines
