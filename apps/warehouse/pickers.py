"""Warehouse pickers (apps.core.pickers): locations, lots and the outbound lines stock goes to."""

from apps.core.pickers import Picker, register
from apps.core.scoping import VIEW
from apps.shipments.models import Shipment, ShipmentLine

from .models import Location, Lot


def location_label(location: Location) -> str:
    return f"{location.site.name} · {location.code}"


def lot_label(lot: Lot) -> str:
    return (
        f"{lot.part.part_number} at {lot.location.site.name} {lot.location.code}: "
        f"{lot.quantity - lot.allocated} free of {lot.quantity} ({lot.owner})"
    )


def line_label(line: ShipmentLine) -> str:
    return f"{line.shipment.reference} line {line.line_number}: {line.quantity} × {line.part.part_number}"


def outbound_lines(user):
    """Lines of the shipments the user sees (a line has no scope of its own: its shipment's)."""
    from .services import ALLOCATABLE, SHIPPABLE

    shipments = Shipment.objects.visible_to(user, VIEW).filter(status__in=ALLOCATABLE | SHIPPABLE)
    return (
        ShipmentLine.objects.filter(shipment__in=shipments)
        .select_related("shipment", "part")
        .order_by("-shipment__created_at", "shipment_id", "line_number")
    )


register(
    Picker(
        kind="location",
        queryset=lambda user: (
            Location.objects.visible_to(user, VIEW)
            .filter(is_active=True)
            .select_related("site")
            .order_by("site__name", "zone", "aisle", "rack", "bin")
        ),
        search_fields=("site__name", "zone", "aisle", "rack", "bin"),
        label=location_label,
    ),
    default_for=Location,
)
register(
    Picker(
        kind="lot",
        queryset=lambda user: (
            Lot.objects.visible_to(user, VIEW)
            .filter(quantity__gt=0)
            .select_related("part", "location__site", "owner")
            .order_by("part__part_number", "location__site__name", "pk")
        ),
        search_fields=("part__part_number", "part__name", "location__site__name", "location__zone"),
        label=lot_label,
    ),
    default_for=Lot,
)
register(
    Picker(
        kind="outbound-line",
        queryset=outbound_lines,
        search_fields=("shipment__reference", "part__part_number", "part__name"),
        label=line_label,
    )
)
