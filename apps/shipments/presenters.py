"""Freight plans as data for the API and the shipment page."""

from __future__ import annotations

from decimal import Decimal

from apps.core.jsonable import jsonable

from . import selectors
from .models import Shipment


def freight_plan_data(shipment: Shipment) -> dict:
    """Recommendation, every option and the landed cost of the recommended plan, JSON-ready.

    Raises NoRateError when the lane has no valid rate.
    """
    recommendation, options = selectors.freight_plan(shipment)
    if recommendation is None:
        return {
            "recommendation": None,
            "options": [],
            "landed_cost": None,
            "message": "Add lines (with catalogue dimensions) or packages to plan freight.",
        }
    chosen_cost = _recommended_cost(recommendation)
    landed = selectors.landed_cost(shipment, chosen_cost) if chosen_cost is not None else None
    recommended = jsonable(recommendation)
    recommended.pop("options", None)  # listed once, under "options"
    return {
        "recommendation": recommended,
        "options": jsonable(options),
        "landed_cost": jsonable(landed),
    }


def _recommended_cost(recommendation) -> Decimal | None:
    if recommendation.split is not None:
        return recommendation.split.cost
    if recommendation.option is not None:
        return recommendation.option.cost
    return None
