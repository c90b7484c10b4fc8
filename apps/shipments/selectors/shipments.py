"""Shipment lists and the shipment page: lateness, the status and ETA, the page's lines and the
querysets the detail reads in a fixed number of queries."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.db.models import Count, F, OuterRef, Prefetch, Q, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from ..models import (
    EventCode,
    Leg,
    LegRole,
    LineSerial,
    Package,
    PackageItem,
    Shipment,
    ShipmentLine,
    ShipmentStatus,
    TrackingEvent,
)
from .parties import parties_queryset

# Still under way: neither delivered nor cancelled.
OPEN_Q = ~Q(status__in=[ShipmentStatus.DELIVERED, ShipmentStatus.CANCELLED])


def need_counts(queryset, conditions: dict[str, Q]) -> dict[str, int]:
    """How many rows of `queryset` meet each condition, in one query (the dashboards' tiles)."""
    if not conditions:
        return {}
    return queryset.aggregate(**{key: Count("pk", filter=q) for key, q in conditions.items()})


def late_q(today: dt.date | None = None) -> Q:
    """Shipments that will miss (or missed) their required date: ETA after it, or no ETA and the
    date already passed without delivery."""
    today = today or timezone.localdate()
    return ~Q(status=ShipmentStatus.CANCELLED) & (
        Q(eta__gt=F("required_by"))
        | (Q(required_by__lt=today) & ~Q(status=ShipmentStatus.DELIVERED) & Q(eta__isnull=True))
    )


def status_now(shipment: Shipment) -> ShipmentStatus:
    """The shipment's status as stored now: what every flash and answer states. An object in
    memory may hold the status from before hooks moved it (the compliance check that approves it
    when the review commits, the steps a milestone infers)."""
    return ShipmentStatus(Shipment.objects.filter(pk=shipment.pk).values_list("status", flat=True).get())


def is_late(shipment: Shipment, today: dt.date | None = None) -> bool:
    today = today or timezone.localdate()
    if shipment.status == ShipmentStatus.CANCELLED:
        return False
    if shipment.eta is not None:
        return shipment.eta > shipment.required_by
    return shipment.status != ShipmentStatus.DELIVERED and shipment.required_by < today


def shipment_refresh_eta(shipment: Shipment) -> dt.date | None:
    """ETA at the destination: the delivery date once delivered; else the newest ETA a partner
    reported (not on an inbound leg: that is the hub's); else the planned arrival of the leg that
    reaches the destination, else of the main carriage. An inbound leg, whatever its sequence,
    reaches only the hub."""
    delivered = shipment.events.filter(code=EventCode.DELIVERED).order_by("occurred_at").first()
    if delivered is not None:
        eta = delivered.occurred_at.date()
    else:
        reported = (
            shipment.events.filter(eta__isnull=False)
            .exclude(leg__role=LegRole.INBOUND)
            .order_by("-occurred_at", "-id")
            .first()
        )
        eta = reported.eta if reported else planned_destination_arrival(shipment)
    if eta != shipment.eta:
        Shipment.objects.filter(pk=shipment.pk).update(eta=eta)
        shipment.eta = eta
    return eta


def planned_destination_arrival(shipment: Shipment) -> dt.date | None:
    """The planned arrival of the leg that reaches the destination, else of the main carriage
    (then the goods are at the destination's gateway); never of an inbound leg."""
    legs = list(
        shipment.legs.filter(planned_arrival__isnull=False)
        .exclude(role=LegRole.INBOUND)
        .only("sequence", "destination_id", "planned_arrival")
    )
    reaching = [leg for leg in legs if leg.destination_id == shipment.destination_id]
    last = max(reaching or legs, key=lambda leg: leg.sequence, default=None)
    return last.planned_arrival if last else None


def leg_line_numbers(shipment: Shipment) -> dict[int, list[int]]:
    """The line numbers each leg of the shipment carries, by leg id, in one query of plain values."""
    carried: dict[int, list[int]] = {}
    rows = Leg.lines.through.objects.filter(leg__shipment=shipment).values_list(
        "leg_id", "shipmentline__line_number"
    )
    for leg_id, number in rows:
        carried.setdefault(leg_id, []).append(number)
    return carried


def detail_lines_queryset():
    """A shipment page's lines: part, own shipper and exporter, serials and units packed."""
    return ShipmentLine.objects.select_related(
        "part__manufacturer", "shipper", "exporter_of_record"
    ).annotate(
        # Subqueries, not joins: two aggregates over joins would multiply each other.
        serial_count=Coalesce(
            Subquery(
                LineSerial.objects.filter(line=OuterRef("pk"))
                .values("line")
                .annotate(n=Count("id"))
                .values("n")
            ),
            0,
        ),
        packed=Coalesce(
            Subquery(
                PackageItem.objects.filter(line=OuterRef("pk"))
                .values("line")
                .annotate(n=Sum("quantity"))
                .values("n")
            ),
            0,
        ),
    )


def detail_lines(shipment: Shipment, *, limit: int | None) -> tuple[list[ShipmentLine], dict]:
    """The lines a shipment page shows (the first `limit`, or all) and totals over every line, in
    two queries: a 3,000-line consolidation's page reads 200 lines, not 3,000."""
    shown = detail_lines_queryset().filter(shipment=shipment).order_by("line_number")
    totals = shipment.lines.aggregate(
        count=Count("id"),
        units=Coalesce(Sum("quantity"), 0),
        value=Coalesce(Sum(F("unit_value") * F("quantity")), Decimal("0")),
        own_parties=Count("id", filter=Q(shipper__isnull=False) | Q(exporter_of_record__isnull=False)),
    )
    return list(shown[:limit] if limit else shown), totals


def shipment_detail_queryset():
    """A shipment with what its page reads. Every line is loaded plainly (the documents' problems
    and the record-party needs read them all); the rows shown, with their serial and packing
    figures, are paged by `detail_lines`."""
    return Shipment.objects.select_related("origin", "destination", "owner", "created_by").prefetch_related(
        Prefetch("parties", queryset=parties_queryset()),
        Prefetch("lines", queryset=ShipmentLine.objects.select_related("part__manufacturer")),
        Prefetch(
            "packages",
            queryset=Package.objects.prefetch_related(
                Prefetch("items", queryset=PackageItem.objects.select_related("line__part")),
                Prefetch(
                    "serials",
                    queryset=LineSerial.objects.select_related("unit").only(
                        "unit__serial", "package_id", "line_id"
                    ),
                ),
            ),
        ),
        Prefetch(
            "legs",
            # The page shows the numbers of the lines each leg carries (`leg_line_numbers`), read as
            # plain values: a consolidation's legs carry thousands of lines.
            queryset=Leg.objects.select_related("origin", "destination"),
        ),
        Prefetch("events", queryset=TrackingEvent.objects.select_related("posted_by", "organisation", "leg")),
    )
