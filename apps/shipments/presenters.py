"""Freight plans as data for the API and the shipment page."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from types import SimpleNamespace

from django import forms
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from apps.core.jsonable import jsonable

from . import selectors
from .models import EventCode, Shipment, ShipmentStatus
from .services.freight_booking import booked_option_id, shipment_option_id


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
    listed = jsonable(options)
    # Each option with the stable name it is booked by, and the one the legs book already, if any.
    for data, option in zip(listed, options, strict=True):
        data["id"] = shipment_option_id(shipment, option)
    if recommended.get("option") is not None and recommendation.option is not None:
        recommended["option"]["id"] = shipment_option_id(shipment, recommendation.option)
    legs = list(shipment.legs.all())
    return {
        "recommendation": recommended,
        "options": listed,
        "landed_cost": jsonable(landed),
        "booked_option": booked_option_id(shipment, legs, options),
    }


def route_plan_data(shipment: Shipment, route) -> dict:
    """A consolidation as the route it is: each leg with its options and the one chosen for it, the
    hub handling, the total, and the landed cost with the main carriage as the customs freight."""
    landed = selectors.landed_cost_for_route(shipment, route)
    # Every option of a leg carries the leg's pieces: they are listed once, on the leg (a 3,000-line
    # consolidation would otherwise list its 3,000 labels once per option and again for the chosen
    # one), and the options' copies are dropped before they are converted, not after.
    data = jsonable(
        replace(
            route,
            legs=[
                replace(leg, options=[_unlabelled(o) for o in leg.options], chosen=_unlabelled(leg.chosen))
                for leg in route.legs
            ],
        )
    )
    for leg in data["legs"]:
        for option in (*leg["options"], leg["chosen"]):
            if option is not None:
                option.pop("pieces_labels", None)
    return {
        "recommendation": None,
        "options": [],
        "route": data,
        "landed_cost": jsonable(landed),
        # No amount in the message: every partner reads it (disclosure.py).
        "message": f"A consolidation through {route.legs[0].destination_country}: priced leg by leg "
        f"({len(route.legs)} legs), each on its own lane and dates.",
    }


def _unlabelled(option):
    return None if option is None else replace(option, pieces_labels=())


def _recommended_cost(recommendation) -> Decimal | None:
    if recommendation.split is not None:
        return recommendation.split.cost
    if recommendation.option is not None:
        return recommendation.option.cost
    return None


# From booking on, the plan is what was booked: options priced from today would mark a shipment in
# the air "late" against rates nobody will use.
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


def lines_carried(numbers: list[int], *, listed: int = 10) -> str:
    """The line numbers a leg carries, for the shipment page: "Line 1, Line 2" for a few, runs for
    many ("Lines 1–1,500, 1,502"), so a 3,000-line consolidation's legs table stays a table."""
    numbers = sorted(numbers)
    if len(numbers) <= listed:
        return ", ".join(f"Line {n}" for n in numbers)
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = ", ".join(f"{a:,}" if a == b else f"{a:,}–{b:,}" for a, b in runs[:listed])
    more = f" and {len(runs) - listed:,} more runs" if len(runs) > listed else ""
    return f"Lines {text}{more} ({len(numbers):,} lines)"


# The shipment page lists this many lines, then links to all of them.
LINES_SHOWN = 200


class _QuickSelectMultiple(forms.SelectMultiple):
    """A multiple select rendered in Python rather than one template per option: the same HTML as
    Django's, for a choice among thousands of lines (a 3,000-line shipment's "lines carried" took
    seconds through the option templates)."""

    def render(self, name, value, attrs=None, renderer=None):
        chosen = set(self.format_value(value))
        options = format_html_join(
            "",
            '<option value="{}"{}>{}</option>',
            (
                (key, mark_safe(" selected") if key in chosen else "", label)
                for key, label in ((str(v), lbl) for v, lbl in self.choices)
            ),
        )
        final = self.build_attrs(self.attrs, attrs)
        return format_html('<select name="{}"{} multiple>\n{}\n</select>', name, flatatt(final), options)


def quick_line_choices(form):
    """The leg form with its "lines carried" rendered by `_QuickSelectMultiple`: the same field and
    posted values, and the same labels (the form's `label_from_instance`), read as plain values
    rather than a line and a part instance per choice."""
    field = form.fields["lines"]
    widget = _QuickSelectMultiple(attrs=field.widget.attrs)
    widget.is_required = field.widget.is_required
    rows = field.queryset.values_list(
        "pk", "line_number", "quantity", "country_of_origin", "part__part_number"
    )
    try:
        widget.choices = [
            (
                pk,
                field.label_from_instance(
                    SimpleNamespace(
                        pk=pk,
                        line_number=number,
                        quantity=quantity,
                        country_of_origin=country,
                        part=SimpleNamespace(part_number=part_number),
                    )
                ),
            )
            for pk, number, quantity, country, part_number in rows
        ]
    except AttributeError:  # a label that reads more of the line: the field's own choices
        widget.choices = field.choices
    field.widget = widget
    return form
