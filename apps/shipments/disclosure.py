"""What a partner reads of a shipment's freight plan.

The rate table (`FreightRate`) is the operator's: its carrier rates (price per kg, per container,
per m³ and tonne, minimum charges) are read by operator staff only. Every price in a freight plan
is worked out from them, and the plan's free text (breakdowns, reasons) quotes them, so a partner
reads an allow-listed projection of the plan, never the plan itself:

- operator staff read the whole plan;
- the shipment's customer side — its owner, consignee, ultimate consignee and importer of record —
  reads each option's physical facts and its total (what moving the goods would cost them) and
  the landed cost (their own duties and taxes), but no rate card: no breakdown, no reasons;
- every other partner (a supplier, a forwarder, a broker) reads the physical facts only: no
  totals and no landed cost of the customer's goods.

A consolidation priced leg by leg (`route`) and what was booked (`booked.booked_freight`, with
`booked_freight_cost`) follow the same split: the legs' physical facts for every partner, the
legs' costs, the hub handling and the totals for the customer side, breakdowns and reasons for
operator staff only. The booked view's legs, dates and recorded freight charge are no rate card
and every party reads them.

A field the freight engine adds later stays hidden from partners until it is listed here.
See docs/security.md, "Freight rates and landed cost".
"""

from __future__ import annotations

from typing import Any

from .models import PartyRole, Shipment

CUSTOMER_ROLES = (PartyRole.CONSIGNEE, PartyRole.ULTIMATE_CONSIGNEE, PartyRole.IMPORTER_OF_RECORD)

# What any partner on the shipment reads of an option: how, when, how heavy, in what.
OPTION_FACTS = (
    "mode",
    "service",
    "carrier",
    "currency",
    "transit_days",
    "departure",
    "arrival",
    "on_time",
    "chargeable_kg",
    "pieces_labels",
    "aircraft",
)
OCEAN_FACTS = ("containers", "chosen", "volume_m3", "gross_kg", "utilisation")
# Totals, read by the customer side only (never the rates they were worked out from).
OPTION_TOTALS = ("cost",)
OCEAN_TOTALS = ("cost", "fcl_cost", "lcl_cost")
SPLIT_FACTS = ("arrival", "on_time")
# A consolidation priced leg by leg: the route's and each leg's physical facts for any partner;
# its totals (each leg's chosen cost, the hub handling, the route's cost) for the customer side.
ROUTE_FACTS = ("currency", "arrival", "on_time", "main", "hub_handling_note")
ROUTE_TOTALS = ("cost", "hub_handling")
LEG_FACTS = (
    "sequence",
    "role",
    "label",
    "origin_country",
    "destination_country",
    "pieces_labels",
    "departure",
    "deadline",
)
# What was booked (`Shipment.booked_freight`): the same split, per leg when it was a route.
BOOKED_FACTS = ("kind", "currency", "priced_on", "arrival", "on_time", "not_priced", "hub_handling_note")
BOOKED_TOTALS = ("cost", "hub_handling")
BOOKED_LEG_FACTS = ("sequence", "role", "label", "origin_country", "destination_country", "chosen_by")

HIDDEN_LANDED_COST = "The landed cost is shown to the shipment's owner and its customer only."


def sees_rates(viewer) -> bool:
    return bool(getattr(viewer, "is_operator_staff", False))


def sees_totals(viewer, shipment: Shipment) -> bool:
    """Operator staff, and the shipment's customer side (owner, consignee, ultimate consignee,
    importer of record)."""
    if sees_rates(viewer):
        return True
    organisation_id = getattr(viewer, "organisation_id", None)
    if organisation_id is None:
        return False
    if organisation_id == shipment.owner_id:
        return True
    return shipment.parties.filter(organisation_id=organisation_id, role__in=CUSTOMER_ROLES).exists()


def freight_plan_for(plan: dict, shipment: Shipment, viewer) -> dict:
    """`plan` (presenters.freight_plan_data) as `viewer` may read it."""
    if sees_rates(viewer):
        return plan
    totals = sees_totals(viewer, shipment)
    recommendation = plan.get("recommendation")
    shown: dict[str, Any] = {
        "recommendation": None
        if recommendation is None
        else {
            "option": _option(recommendation.get("option"), totals),
            "split": _split(recommendation.get("split"), totals),
        },
        "options": [_option(o, totals) for o in plan.get("options") or []],
        "landed_cost": plan.get("landed_cost") if totals else None,
    }
    if "route" in plan:
        shown["route"] = _route(plan["route"], totals)
    if "message" in plan:
        shown["message"] = plan["message"]
    # What was booked (legs, dates, the shipment's own freight charge) is no rate card: every
    # party of the shipment reads it on the shipment and its legs anyway. The option chosen at
    # booking and its cost are projected like any option: its cost for the customer side only.
    if "booked" in plan:
        booked = dict(plan["booked"])
        if not totals:
            booked.pop("booked_freight_cost", None)
        booked["booked_freight"] = _booked(booked.get("booked_freight"), totals)
        shown["booked"] = booked
    if not totals and plan.get("landed_cost") is not None:
        shown["landed_cost_note"] = HIDDEN_LANDED_COST
    return shown


def _pick(data: dict, keys: tuple[str, ...]) -> dict:
    return {k: data[k] for k in keys if k in data}


def _option(option: dict | None, totals: bool) -> dict | None:
    if option is None:
        return None
    shown = _pick(option, OPTION_FACTS + (OPTION_TOTALS if totals else ()))
    ocean = option.get("ocean_plan")
    if ocean is not None:
        shown["ocean_plan"] = _pick(ocean, OCEAN_FACTS + (OCEAN_TOTALS if totals else ()))
    elif "ocean_plan" in option:
        shown["ocean_plan"] = None
    return shown


def _split(split: dict | None, totals: bool) -> dict | None:
    if split is None:
        return None
    shown = _pick(split, SPLIT_FACTS + (("cost",) if totals else ()))
    shown["air"] = _option(split.get("air"), totals)
    shown["ocean"] = _option(split.get("ocean"), totals)
    return shown


def _route(route: dict | None, totals: bool) -> dict | None:
    if route is None:
        return None
    shown = _pick(route, ROUTE_FACTS + (ROUTE_TOTALS if totals else ()))
    shown["legs"] = [
        {
            **_pick(leg, LEG_FACTS),
            "options": [_option(o, totals) for o in leg.get("options") or []],
            "chosen": _option(leg.get("chosen"), totals),
        }
        for leg in route.get("legs") or []
    ]
    return shown


def _booked(booked: dict | None, totals: bool) -> dict | None:
    if booked is None:
        return None
    shown = _pick(booked, BOOKED_FACTS + (BOOKED_TOTALS if totals else ()))
    if "option" in booked:
        shown["option"] = _option(booked["option"], totals)
    if "split" in booked:
        shown["split"] = _split(booked["split"], totals)
    if "legs" in booked:
        shown["legs"] = [
            {**_pick(leg, BOOKED_LEG_FACTS), "option": _option(leg.get("option"), totals)}
            for leg in booked["legs"]
        ]
    return shown
