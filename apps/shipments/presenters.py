"""Freight plans as data for the API and the shipment page."""

from __future__ import annotations

from decimal import Decimal

from apps.core.jsonable import jsonable

from . import selectors
from .models import EventCode, Shipment, ShipmentStatus


def freight_plan_data(shipment: Shipment) -> dict:
    """Recommendation, every option and the landed cost of the recommended plan, JSON-ready.

    Raises NoRateError when the lane has no valid rate.
    """
    if shipment_is_booked(shipment):
        return booked_plan_data(shipment)
    route = selectors.freight_route(shipment)
    if route is not None:
        return route_plan_data(shipment, route)
    recommendation, options = selectors.freight_plan(shipment)
    if recommendation is None:
        return {
            "recommendation": None,
            "options": [],
            "landed_cost": None,
            "message": "Add lines (with catalogue dimensions) or packages to plan freight.",
        }
    # Raises CurrencyMismatch when freight or fees cannot be converted into the shipment's currency.
    landed = selectors.landed_cost_for_plan(shipment, recommendation)
    recommended = jsonable(recommendation)
    recommended.pop("options", None)  # listed once, under "options"
    return {
        "recommendation": recommended,
        "options": jsonable(options),
        "landed_cost": jsonable(landed),
    }


def route_plan_data(shipment: Shipment, route) -> dict:
    """A consolidation as the route it is: each leg with its options and the one chosen for it, the
    hub handling, the total, and the landed cost with the main carriage as the customs freight."""
    landed = selectors.landed_cost_for_route(shipment, route)
    return {
        "recommendation": None,
        "options": [],
        "route": jsonable(route),
        "landed_cost": jsonable(landed),
        # No amount in the message: every partner reads it (disclosure.py).
        "message": f"A consolidation through {route.legs[0].destination_country}: priced leg by leg "
        f"({len(route.legs)} legs), each on its own lane and dates.",
    }


def _recommended_cost(recommendation) -> Decimal | None:
    if recommendation.split is not None:
        return recommendation.split.cost
    if recommendation.option is not None:
        return recommendation.option.cost
    return None


# From booking on, the plan is what was booked: options priced from today would mark a shipment in
# the air "late" against rates nobody will use (issue 11).
BOOKED_STATUSES = frozenset(
    {
        ShipmentStatus.BOOKED,
        ShipmentStatus.IN_TRANSIT,
        ShipmentStatus.AT_CUSTOMS,
        ShipmentStatus.CLEARED,
        ShipmentStatus.DELIVERED,
    }
)


def shipment_is_booked(shipment: Shipment) -> bool:
    held_after_booking = shipment.status == ShipmentStatus.ON_HOLD and shipment.held_from in BOOKED_STATUSES
    return shipment.status in BOOKED_STATUSES or held_after_booking


def booked_plan_data(shipment: Shipment) -> dict:
    """What was booked (legs with carrier, transport document and dates) and what it cost: the freight
    charge recorded and the option (or per-leg plan) chosen at booking with its cost, stored then
    (`booked_freight.store_on_booking`); never re-priced from today's rates."""
    booked_event = shipment.events.filter(code=EventCode.BOOKED).order_by("occurred_at").first()
    legs = [
        {
            "sequence": leg.sequence,
            "role": leg.role,
            "mode": leg.mode,
            "carrier": leg.carrier,
            "transport_document": leg.transport_document,
            "origin": str(leg.origin),
            "destination": str(leg.destination),
            "planned_departure": leg.planned_departure,
            "planned_arrival": leg.planned_arrival,
            "actual_departure": leg.actual_departure,
            "actual_arrival": leg.actual_arrival,
        }
        for leg in shipment.legs.select_related("origin", "destination").order_by("sequence")
    ]
    charge = shipment.freight_charge
    cost = (
        f"Freight charge recorded: {charge:,.2f} {shipment.currency}."
        if charge is not None
        else "No freight charge is recorded for it."
    )
    # The cost at booking is not put in the message: partners read the message, and only the
    # customer side reads that cost (disclosure.py).
    booked_cost = shipment.booked_freight_cost
    return {
        "recommendation": None,
        "options": [],
        "landed_cost": None,
        "booked": jsonable(
            {
                "status": shipment.status,
                "mode": shipment.mode,
                "booked_at": booked_event.occurred_at if booked_event else None,
                "freight_charge": charge,
                "currency": shipment.currency,
                "eta": shipment.eta,
                "legs": legs,
                "booked_freight": shipment.booked_freight,
                "booked_freight_cost": booked_cost,
                "booked_freight_currency": shipment.booked_freight_currency,
            }
        ),
        "message": f"Booked ({shipment.get_mode_display().lower()}): freight options are not re-priced "
        f"once a shipment is booked. {cost}",
    }
