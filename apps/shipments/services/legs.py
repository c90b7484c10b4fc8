"""A shipment's legs, each checked as a link of the route: inbound legs to one hub, the main
carriage from it to the destination (or a gateway of its country), an onward leg from there."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from .. import selectors
from ..engines import workflow
from ..models import Leg, LegRole, Shipment, ShipmentLine, SiteKind, TransportMode


@transaction.atomic
def leg_add(*, shipment: Shipment, fields: dict[str, Any], lines: list[ShipmentLine] | None = None) -> Leg:
    """Add a leg, checked as a link of the route (`_route_problems`)."""
    shipment = Shipment.objects.select_for_update().select_related("destination").get(pk=shipment.pk)
    if shipment.status in workflow.TERMINAL:
        raise ValidationError(
            {"shipment": f"{shipment.reference} is {shipment.get_status_display().lower()}."}
        )
    sequence = (shipment.legs.aggregate(n=Max("sequence"))["n"] or 0) + 1
    leg = Leg(shipment=shipment, sequence=fields.pop("sequence", None) or sequence)
    return _leg_save(shipment, leg, fields, lines or [])


@transaction.atomic
def leg_update(*, leg: Leg, fields: dict[str, Any], lines: list[ShipmentLine] | None = None) -> Leg:
    """Change a leg; the route is checked again with the leg as changed."""
    # The shipment first, as leg_add locks it: two writers of one route queue instead of both passing.
    shipment = Shipment.objects.select_for_update().select_related("destination").get(pk=leg.shipment_id)
    leg = Leg.objects.select_for_update().get(pk=leg.pk)
    return _leg_save(shipment, leg, fields, list(leg.lines.all()) if lines is None else lines)


@transaction.atomic
def leg_remove(*, leg: Leg) -> None:
    """Remove a planned leg. A leg that has departed, or has milestones, is the shipment's history:
    it stays (change its dates instead)."""
    shipment = Shipment.objects.select_for_update().get(pk=leg.shipment_id)
    leg = Leg.objects.select_for_update().get(pk=leg.pk)
    if shipment.status in workflow.TERMINAL:
        raise ValidationError({"leg": f"{shipment.reference} is {shipment.get_status_display().lower()}."})
    if leg.actual_departure is not None or leg.events.exists():
        raise ValidationError(
            {"leg": f"Leg {leg.sequence} has departed or has milestones: it is part of the record and stays."}
        )
    leg.delete()


def _leg_save(shipment: Shipment, leg: Leg, fields: dict[str, Any], lines: list[ShipmentLine]) -> Leg:
    for name, value in fields.items():
        setattr(leg, name, value)
    leg.full_clean()
    if any(line.shipment_id != shipment.pk for line in lines):
        raise ValidationError({"lines": "Every line must belong to this shipment."})
    others = list(
        shipment.legs.exclude(pk=leg.pk).select_related("origin", "destination").prefetch_related("lines")
    )
    problems = _route_problems(shipment, leg, lines, others)
    for field, message in mode_problems(leg).items():
        problems.setdefault(field, []).append(message)
    if problems:
        raise ValidationError(problems)
    leg.save()
    leg.lines.set(lines)
    selectors.shipment_refresh_eta(shipment)
    return leg


HUB_KINDS = frozenset({SiteKind.WAREHOUSE})

# A gateway serves one mode: aircraft do not call at a seaport, ships at an airport. (Road and
# multimodal legs reach either: trucking to the airport, a forwarder's door-to-door.)
WRONG_GATEWAY = {
    TransportMode.AIR: (SiteKind.SEAPORT, "an air leg starts and ends at an airport or a site on land"),
    TransportMode.OCEAN: (SiteKind.AIRPORT, "an ocean leg starts and ends at a seaport or a site on land"),
}


def mode_problems(leg: Leg) -> dict[str, str]:
    """An air leg from or to a seaport, an ocean leg from or to an airport: by field."""
    wrong = WRONG_GATEWAY.get(leg.mode)
    if wrong is None:
        return {}
    kind, rule = wrong
    return {
        field: f"{site.name} is a {site.get_kind_display().lower()}: {rule}."
        for field, site in (("origin", leg.origin), ("destination", leg.destination))
        if site.kind == kind
    }


GATEWAY_KINDS = frozenset({SiteKind.AIRPORT, SiteKind.SEAPORT})


def _route_problems(
    shipment: Shipment, leg: Leg, lines: list[ShipmentLine], others: list[Leg]
) -> dict[str, list[str]]:
    """What keeps `leg` from being a link of the shipment's route, by field. The route: inbound
    legs bring each supplier's lines to one hub (each line once), the main carriage leaves from
    that hub and reaches the destination — or an airport or seaport of its country, from which
    an onward leg reaches it."""
    problems: dict[str, list[str]] = {}

    def refuse(field: str, message: str) -> None:
        problems.setdefault(field, []).append(message)

    destination = shipment.destination
    main = next((other for other in others if other.role == LegRole.MAIN), None)
    inbound = [other for other in others if other.role == LegRole.INBOUND]
    hub_leg = inbound[0] if inbound else None
    if leg.role == LegRole.INBOUND:
        if leg.origin_id == destination.pk:
            refuse(
                "origin",
                f"An inbound leg never starts at the shipment's destination, {destination}: "
                "it brings a supplier's goods to the hub.",
            )
        if leg.destination.kind not in HUB_KINDS:
            refuse(
                "destination",
                f"An inbound leg ends at the consolidation hub, one of our warehouses; {leg.destination} "
                f"is a {leg.destination.get_kind_display().lower()}.",
            )
        elif hub_leg is not None and leg.destination_id != hub_leg.destination_id:
            refuse(
                "destination",
                f"Inbound legs end at one hub: leg {hub_leg.sequence} ends at {hub_leg.destination}.",
            )
        elif main is not None and leg.destination_id != main.origin_id:
            refuse(
                "destination",
                f"The main carriage (leg {main.sequence}) starts at {main.origin}; inbound legs end there.",
            )
        carried = {line.pk: other for other in inbound for line in other.lines.all()}
        for line in sorted(lines, key=lambda line: line.line_number):
            if line.pk in carried:
                refuse(
                    "lines",
                    f"Line {line.line_number} is carried to the hub by leg "
                    f"{carried[line.pk].sequence} already.",
                )
    elif leg.role == LegRole.MAIN:
        if main is not None:
            refuse("role", f"Leg {main.sequence} is the main carriage already; a shipment has one.")
        if hub_leg is not None and leg.origin_id != hub_leg.destination_id:
            refuse(
                "origin",
                f"The main carriage starts at the hub the inbound legs end at, {hub_leg.destination}.",
            )
        gateway = leg.destination.kind in GATEWAY_KINDS and leg.destination.country == destination.country
        if leg.destination_id != destination.pk and not gateway:
            refuse(
                "destination",
                f"The main carriage ends at the shipment's destination, {destination} (or at an airport "
                f"or seaport in {destination.get_country_display()}, for an onward leg to it).",
            )
    elif leg.role == LegRole.ONWARD:
        if leg.destination_id != destination.pk:
            refuse("destination", f"An onward leg ends at the shipment's destination, {destination}.")
        after_gateway = main is not None and main.destination_id != destination.pk
        if after_gateway and leg.origin_id != main.destination_id:
            refuse("origin", f"The onward leg starts where the main carriage ends, {main.destination}.")
    return problems
