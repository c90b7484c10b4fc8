"""What was booked: the freight option (or per-leg plan) chosen when a shipment enters "booked".

Freight options are not re-priced once a shipment is booked: the booked view shows the
plan stored here (`Shipment.booked_freight`, amounts as strings) and its cost. A leg that records
its mode (and carrier) is taken as booked by that mode: its cheapest option of that mode (that
carrier's, when it has a rate), priced on the day of booking; otherwise the recommended option is
taken. A shipment that cannot be priced is still booked: the reason is stored instead.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from apps.core.jsonable import jsonable

from . import selectors
from .engines import freight as freight_engine
from .hooks import Entered
from .models import Leg, Shipment


def _booked_option(options: list, leg: Leg | None) -> tuple[object | None, str]:
    """The option of the leg's recorded mode (and carrier), cheapest first; None without one."""
    if leg is None or leg.mode not in freight_engine.MODES:
        return None, ""
    of_mode = [o for o in options if o.mode == leg.mode]
    by_carrier = [o for o in of_mode if leg.carrier and o.carrier == leg.carrier]
    picked = (by_carrier or of_mode or [None])[0]
    if picked is None:
        return None, ""
    carrier = f", {leg.carrier}" if by_carrier else ""
    return picked, f"the leg's booked mode ({leg.mode}{carrier})"


def _not_priced(today: dt.date, reason: str) -> tuple[dict, None, str]:
    return {"kind": "not_priced", "priced_on": today.isoformat(), "not_priced": reason}, None, ""


def booked_freight_snapshot(
    shipment: Shipment, *, today: dt.date | None = None
) -> tuple[dict, Decimal | None, str]:
    """(plan as JSON, its cost, its currency) for the shipment as it is booked now."""
    on = selectors.plan_date(shipment, today)
    legs = selectors.route_legs(shipment)
    try:
        if selectors.is_consolidation(legs):
            route = selectors.freight_route(shipment, today=today, legs=legs)
            if route is None:
                return _not_priced(on, "Nothing to carry: no lines or packages.")
            by_sequence = {leg.sequence: leg for leg in legs}
            rows, chosen = [], []
            for plan in route.legs:
                option, why = _booked_option(plan.options, by_sequence.get(plan.sequence))
                if option is None:
                    option, why = plan.chosen, "recommended" if plan.chosen is not None else ""
                if option is not None:
                    chosen.append(option)
                rows.append(
                    {
                        "sequence": plan.sequence,
                        "role": plan.role,
                        "label": plan.label,
                        "origin_country": plan.origin_country,
                        "destination_country": plan.destination_country,
                        "chosen_by": why or "not priced: it carries no lines",
                        "option": jsonable(option),
                    }
                )
            currencies = {o.currency for o in chosen}
            if len(currencies) != 1:
                return _not_priced(
                    on, f"The booked legs are priced in several currencies ({', '.join(sorted(currencies))})."
                )
            currency = currencies.pop()
            cost = freight_engine.money(sum((o.cost for o in chosen), route.hub_handling or Decimal(0)))
            data = {
                "kind": "route",
                "priced_on": on,
                "currency": currency,
                "cost": cost,
                "hub_handling": route.hub_handling,
                "hub_handling_note": route.hub_handling_note,
                "legs": rows,
            }
            return jsonable(data), cost, currency
        recommendation, options = selectors.freight_plan(shipment, today=today)
        if recommendation is None:
            return _not_priced(on, "Nothing to carry: no lines or packages.")
        main = next((leg for leg in legs if leg.role == "main"), None)
        booked_as = main or Leg(mode=shipment.mode)
        option, why = _booked_option(options, booked_as)
        if option is None and recommendation.split is not None:
            split = recommendation.split
            data = {"kind": "split", "priced_on": on, "currency": split.air.currency, "cost": split.cost}
            data["split"] = split
            return jsonable(data), split.cost, split.air.currency
        option = option or recommendation.option
        if option is None:
            return _not_priced(on, "No option was recommended.")
        data = {
            "kind": "option",
            "priced_on": on,
            "currency": option.currency,
            "cost": option.cost,
            "arrival": option.arrival,
            "on_time": option.on_time,
            "chosen_by": why or "recommended",
            "option": option,
        }
        return jsonable(data), option.cost, option.currency
    except ValueError as error:  # FreightError and the engine's refusals: booking goes on, unpriced
        return _not_priced(on, str(error))


def store_on_booking(event: Entered) -> None:
    """Hook for entering "booked" (registered in ShipmentsConfig.ready()): store what was booked.
    A release from a hold back to booked keeps what was stored at booking."""
    shipment = event.shipment
    if event.released or shipment.booked_freight is not None:
        return
    data, cost, currency = booked_freight_snapshot(shipment)
    Shipment.objects.filter(pk=shipment.pk).update(
        booked_freight=data, booked_freight_cost=cost, booked_freight_currency=currency
    )
    shipment.booked_freight, shipment.booked_freight_cost = data, cost
    shipment.booked_freight_currency = currency
