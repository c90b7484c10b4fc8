"""Booking a freight option: the option the freight panel shows becomes the shipment's main
carriage (mode, the rate's carrier, the option's departure and arrival, from the shipment's origin
to its destination), added through `leg_add` like a typed leg, so the route rules, the audit and
the shipment's ETA are the same — and the ETA is the option's arrival, as the panel says.

Rules (each refusal names the field):
- Only before booking with the carrier: a shipment in draft, in compliance review or approved
  (`shipment`). A consolidation (inbound legs to a hub) is planned leg by leg on its legs instead.
- The option is named by `engines.freight.option_id` and priced again now; one that the rate table
  no longer offers (a rate expired or was changed since the page was read) is refused as stale
  (`option`), never booked at another price or date silently.
- Legs already planned are kept unless the caller confirms they are replaced (`replace`), and
  only planned legs are replaced: one that departed or has milestones is the shipment's record.
- Booking the option the legs already describe changes nothing (a double click, a retried
  request): the answer says so and no leg is added.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction

from .. import selectors
from ..engines import freight as freight_engine
from ..engines.incoterms import mode_problem
from ..models import Leg, LegRole, Shipment, ShipmentStatus
from .legs import leg_add, leg_remove

# Before the carrier is booked: afterwards the booked plan is the record (booked_freight.py).
BOOKABLE_STATUSES = (ShipmentStatus.DRAFT, ShipmentStatus.COMPLIANCE_REVIEW, ShipmentStatus.APPROVED)


class FreightBookingConflict(Exception):
    """The shipment, its legs or the rate table are not in a state to book the option now: the
    request is well formed but refused (the API answers 409, the page shows the sentence)."""

    def __init__(self, field_name: str, message: str):
        super().__init__(message)
        self.field = field_name
        self.message = message

    def as_dict(self) -> dict[str, list[str]]:
        return {self.field: [self.message]}


@dataclass
class FreightBooking:
    """What booking did: the option booked, the legs the shipment now has for it, whether they
    were added now (False: they described this option already), the sequences replaced."""

    option: freight_engine.FreightOption
    option_id: str
    legs: list[Leg]
    created: bool
    replaced: list[int] = field(default_factory=list)


def shipment_option_id(shipment: Shipment, option: freight_engine.FreightOption) -> str:
    """The stable name of one of the shipment's freight options (its lane is the shipment's)."""
    return freight_engine.option_id(
        mode=option.mode,
        carrier=option.carrier,
        service=option.service,
        origin_country=shipment.origin.country,
        destination_country=shipment.destination.country,
    )


def leg_fields_for(shipment: Shipment, option: freight_engine.FreightOption) -> dict:
    """The main carriage the option describes."""
    return {
        "role": LegRole.MAIN,
        "origin": shipment.origin,
        "destination": shipment.destination,
        "mode": option.mode,
        "carrier": option.carrier[: Leg._meta.get_field("carrier").max_length],
        "planned_departure": option.departure,
        "planned_arrival": option.arrival,
    }


def leg_books_option(leg: Leg, wanted: dict) -> bool:
    """Whether a leg is the one booking the option would add (same sites, mode, carrier, dates)."""
    return (
        leg.role == wanted["role"]
        and leg.origin_id == wanted["origin"].pk
        and leg.destination_id == wanted["destination"].pk
        and leg.mode == wanted["mode"]
        and leg.carrier == wanted["carrier"]
        and leg.planned_departure == wanted["planned_departure"]
        and leg.planned_arrival == wanted["planned_arrival"]
    )


def booked_option_id(shipment: Shipment, legs: list[Leg], options: list) -> str | None:
    """The id of the option the shipment's legs already book, if they book one (the panel marks
    it and shows no Book buttons beside it)."""
    if len(legs) != 1:
        return None
    for option in options:
        if leg_books_option(legs[0], leg_fields_for(shipment, option)):
            return shipment_option_id(shipment, option)
    return None


@transaction.atomic
def freight_option_book(
    *, shipment: Shipment, option_id: str, replace: bool = False, today: dt.date | None = None
) -> FreightBooking:
    """Book the freight option named `option_id` as the shipment's main carriage (module docstring).

    Raises FreightBookingConflict (409) for a state, legs or a stale option that refuse it, and
    ValidationError (400, naming the field) for what the route rules refuse."""
    # Locked first, as leg_add locks it: a double click's second request waits for the first and
    # then finds its leg, rather than both adding one.
    shipment = (
        Shipment.objects.select_for_update().select_related("origin", "destination").get(pk=shipment.pk)
    )
    if shipment.status not in BOOKABLE_STATUSES:
        raise FreightBookingConflict(
            "shipment",
            f"{shipment.reference} is {shipment.get_status_display().lower()}: a freight option is booked "
            "while the shipment is a draft, in compliance review or approved.",
        )
    legs = list(shipment.legs.select_related("origin", "destination").order_by("sequence"))
    if any(leg.role == LegRole.INBOUND for leg in legs):
        raise FreightBookingConflict(
            "option",
            f"{shipment.reference} is a consolidation through a hub: its legs are planned one by one "
            "(the freight panel prices each leg on its own lane).",
        )
    try:
        _recommendation, options = selectors.freight_plan(shipment, today=today)
    except (freight_engine.FreightError, ValueError) as exc:
        raise FreightBookingConflict("option", f"No freight option can be priced now: {exc}") from exc
    option = next((o for o in options if shipment_option_id(shipment, o) == option_id), None)
    if option is None:
        offered = ", ".join(shipment_option_id(shipment, o) for o in options) or "none"
        raise FreightBookingConflict(
            "option",
            f"No freight option {option_id!r} is offered for {shipment.reference} now (the rate table "
            f"changed since it was shown); read the options again. Offered: {offered}.",
        )
    wanted = leg_fields_for(shipment, option)
    if len(legs) == 1 and leg_books_option(legs[0], wanted):
        return FreightBooking(option=option, option_id=option_id, legs=legs, created=False)
    if problem := mode_problem(shipment.incoterm, option.mode):
        raise ValidationError({"option": f"{option.summary()}: {problem}"})
    replaced = [leg.sequence for leg in legs]
    if legs and not replace:
        raise FreightBookingConflict(
            "legs",
            f"{shipment.reference} has leg{'s' if len(legs) > 1 else ''} {', '.join(map(str, replaced))} "
            "planned already. Booking this option replaces them: confirm with replace (the page's "
            "“Replace the legs” button), or change the legs themselves.",
        )
    recorded = [leg.sequence for leg in legs if leg.actual_departure is not None or leg.events.exists()]
    if recorded:
        raise FreightBookingConflict(
            "legs",
            f"Leg {', '.join(map(str, recorded))} has departed or has milestones: it is part of the "
            "record and is not replaced by a freight option.",
        )
    for leg in legs:
        leg_remove(leg=leg)
    leg = leg_add(shipment=shipment, fields=wanted)
    return FreightBooking(option=option, option_id=option_id, legs=[leg], created=True, replaced=replaced)
