"""What the header's search (apps/core/global_search.py) finds of shipments: a shipment by its
reference, buyer's order (PO), Incoterm place, a leg's air waybill / bill of lading or container
number, or a party's name; and the serials on shipment lines. Everything is read through
`Shipment.visible_to`, as the shipments list is: another organisation's reference finds nothing.

Four queries whatever the number of matches: the shipments' own fields, their legs, their parties
and the line serials, each limited to the best few."""

from __future__ import annotations

import re

from django.db.models import Value
from django.db.models.functions import Replace

from apps.core import global_search as search
from apps.core.scoping import VIEW

from .models import Leg, LineSerial, Shipment, ShipmentParty, TransportMode
from .validators import container_numbers_split

SHIPMENT_FIELDS = {
    "reference": "reference",
    "buyer_order_reference": "buyer's order",
    "incoterm_place": "Incoterm place",
}
LEG_FIELDS = {"transport_document": "AWB / B/L", "container_numbers": "container"}
AWB_DIGITS = re.compile(r"\d{11}")
PARTY_FIELDS = {"organisation__legal_name": "party", "organisation__trading_name": "party"}


def _visible(user):
    return Shipment.objects.visible_to(user, VIEW).values("pk")


def _shipment_hit(shipment: Shipment, row, matched: str, *, exact: bool | None = None) -> search.Hit:
    return search.Hit(
        kind="shipments",
        title=shipment.reference,
        url=shipment.get_absolute_url(),
        detail=f"{shipment.origin} → {shipment.destination} · {shipment.get_status_display()}",
        matched=matched,
        rank=float(row.search_rank),
        exact=bool(row.search_exact) if exact is None else exact,
    )


def _compact(text: str) -> str:
    return re.sub(r"[\s-]", "", text).upper()


def _leg_matched(leg: Leg, text: str) -> tuple[str, bool]:
    """Which of the leg's numbers the query names, and whether it names it exactly."""
    wanted = _compact(text)
    if wanted and wanted in _compact(leg.transport_document):
        label = "AWB" if leg.mode == TransportMode.AIR else "B/L"
        return f"{label} {leg.transport_document}", wanted == _compact(leg.transport_document)
    numbers = container_numbers_split(leg.container_numbers)
    for number in numbers:
        if wanted in number:
            return f"container {number}", wanted == number
    return leg.transport_document or leg.container_numbers, False


def shipments(user, query: search.SearchQuery, limit: int) -> list[search.Hit]:
    visible = _visible(user)
    own = search.ranked(
        Shipment.objects.filter(pk__in=visible).select_related("origin", "destination"),
        query,
        list(SHIPMENT_FIELDS),
        identifiers=["reference", "buyer_order_reference"],
        fuzzy=["incoterm_place"],
        labels=SHIPMENT_FIELDS,
        tiebreak=["-pk"],
    )[: limit + 1]
    hits = [
        _shipment_hit(
            row,
            row,
            f"{row.search_field} {getattr(row, _field_of(row.search_field))}" if row.search_field else "",
        )
        for row in own
    ]
    legs = Leg.objects.filter(shipment__in=visible).select_related(
        "shipment__origin", "shipment__destination"
    )
    leg_fields = list(LEG_FIELDS)
    if AWB_DIGITS.fullmatch(query.text):
        # An air waybill typed without its hyphen (61812345675) finds the one stored with it. Only
        # then: the comparison reads every leg's number, where the others use the trigram index.
        legs = legs.annotate(
            awb_digits=Replace(Replace("transport_document", Value("-"), Value("")), Value(" "), Value(""))
        )
        leg_fields.append("awb_digits")
    legs = search.ranked(legs, query, leg_fields, tiebreak=["-shipment_id", "sequence"])[: limit + 1]
    for leg in legs:
        matched, exact = _leg_matched(leg, query.text)
        hits.append(_shipment_hit(leg.shipment, leg, matched, exact=exact))
    parties = search.ranked(
        ShipmentParty.objects.filter(shipment__in=visible).select_related(
            "organisation", "shipment__origin", "shipment__destination"
        ),
        query,
        list(PARTY_FIELDS),
        fuzzy=["organisation__legal_name"],
        tiebreak=["-shipment_id", "role"],
    )[: limit + 1]
    for party in parties:
        # A name is not an identifier: a party's name lists its shipments, it does not jump.
        matched = f"{party.get_role_display().lower()} {party.organisation}"
        hits.append(_shipment_hit(party.shipment, party, matched, exact=False))
    return search.best_per(hits)


def _field_of(label: str) -> str:
    return next(name for name, text in SHIPMENT_FIELDS.items() if text == label)


def line_serials(user, query: search.SearchQuery, limit: int) -> list[search.Hit]:
    rows = search.ranked(
        LineSerial.objects.filter(line__shipment__in=_visible(user)).select_related(
            "unit__part", "line__shipment"
        ),
        query,
        ["unit__serial"],
        identifiers=["unit__serial"],
        tiebreak=["-line__shipment_id", "line__line_number", "pk"],
    )[: limit + 1]
    return [
        search.hit(
            "line-serials",
            row,
            title=row.unit.serial,
            url=f"{row.line.shipment.get_absolute_url()}#lines",
            detail=f"{row.unit.part.part_number} · line {row.line.line_number} of "
            f"{row.line.shipment.reference}",
            matched="serial",
            thing=f"unit:{row.unit_id}",  # the same box as the unit's own hit
        )
        for row in rows
    ]


search.register("shipments", "Shipments", shipments, order=10)
search.register("line-serials", "Serials on shipment lines", line_serials, order=30)
