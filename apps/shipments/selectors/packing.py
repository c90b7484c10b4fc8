"""What stops booking on the packing side: every unit packed, and for serialised parts one serial
number per unit, each in a package."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Sum

from .. import readiness
from ..models import LineSerial, Shipment


@dataclass(frozen=True)
class PackingProblem:
    field: str  # "packages", "lines[3].packed" or "lines[3].serials"
    message: str
    section: str = "packages"  # where the shipment page fixes it: "packages" or "lines" (serials)


def packing_issues(shipment: Shipment) -> list[PackingProblem]:
    """Every unit packed; for serialised parts, one serial per unit, each in a package.

    Booking needs this, and so does every document that states packages or weights."""
    problems = []
    lines = shipment.lines.select_related("part").annotate(
        packed=Sum("package_items__quantity"),
    )
    # The same rule review flags (readiness): a serial number for every unit of a serialised part.
    short = {number: count for number, count, _units in readiness.serial_gaps(shipment)}
    unpacked_serials = dict(
        LineSerial.objects.filter(line__shipment=shipment, package__isnull=True)
        .values_list("line_id")
        .annotate(n=Count("id"))
    )
    if not shipment.packages.exists():
        problems.append(PackingProblem("packages", "Nothing is packed yet."))
    for line in lines:
        number = line.line_number
        if (line.packed or 0) != line.quantity:
            problems.append(
                PackingProblem(
                    f"lines[{number}].packed",
                    f"Line {number}: {line.packed or 0} of {line.quantity} units packed.",
                )
            )
        if line.part.is_serialised:
            if number in short:
                problems.append(
                    PackingProblem(
                        f"lines[{number}].serials",
                        f"Line {number}: {short[number]} serial numbers for {line.quantity} units.",
                        "lines",
                    )
                )
            elif unpacked_serials.get(line.pk):
                problems.append(
                    PackingProblem(
                        f"lines[{number}].serials",
                        f"Line {number}: {unpacked_serials[line.pk]} serial numbers not in a package.",
                    )
                )
    return problems


def packing_problems(shipment: Shipment) -> list[str]:
    """What stops booking on the packing side, as sentences."""
    return [problem.message for problem in packing_issues(shipment)]
