"""Reads for the warehouse: the units a user may see (one rule for the pages and the API), stock
as the tables hold it, the same picture rebuilt from the movement ledger alone (the two must
always agree), and what a warehouse expects to arrive (overdue, today, this week) or received."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import Count, DecimalField, Exists, F, OuterRef, Q, Sum, TextChoices

from apps.catalog.models import Unit
from apps.core.scoping import VIEW

from .models import Location, Lot, Movement, MovementKind, UnitPlacement

# (part, location, owner, customs status, customs reference): what makes one lot.
LotKey = tuple[int, int, int, str, str]


def visible_units(user, queryset=None):
    """The units `user` may see, on a page or through the API: its organisation's own (catalog
    scoping) and those in a warehouse held for it (allocated to a shipment it is the consignee of).
    A unit given back, or shipped, is no longer held for it: the ledger rows of what happened
    while it was stay readable (`Movement.visible_to`), the unit itself does not."""
    queryset = (queryset if queryset is not None else Unit.objects).all()
    own = queryset.visible_to(user, VIEW)
    if getattr(user, "is_operator_staff", False) or own.query.is_empty():
        return own  # everything, or nothing (a user who may not sign in)
    # One OR of the owner column and the short list of held units. Written as `pk IN (its own
    # units) OR pk IN (placements it sees)`, PostgreSQL could hash neither million-row subquery
    # and read one of them again for every unit: a partner's units list took seconds where the
    # operator's took 70 ms (bench/bench_exports.py).
    held = UnitPlacement.objects.filter(UnitPlacement.held_for_q(user.organisation_id)).values("unit")
    return queryset.filter(Unit.org_scope_q(user.organisation_id, VIEW) | Q(pk__in=held))


@dataclass
class StockPicture:
    """Stock at one moment: lot quantities on hand and allocated (non-zero only), where each unit in
    a warehouse is, and the status of every unit the warehouse has handled."""

    lots: dict[LotKey, int] = field(default_factory=dict)
    allocated: dict[LotKey, int] = field(default_factory=dict)
    units: dict[int, int] = field(default_factory=dict)  # unit → location
    statuses: dict[int, str] = field(default_factory=dict)  # unit → status

    def by_part_location(self) -> dict[tuple[int, int], int]:
        """Pieces on hand per (part, location): lot quantities and units placed there."""
        totals: dict[tuple[int, int], int] = defaultdict(int)
        for (part, location, *_), quantity in self.lots.items():
            totals[(part, location)] += quantity
        parts = dict(Unit.objects.filter(pk__in=self.units).values_list("pk", "part_id"))
        for unit, location in self.units.items():
            totals[(parts[unit], location)] += 1
        return {key: n for key, n in totals.items() if n}


def rebuild_on_hand() -> StockPicture:
    """Stock rebuilt from the movement ledger alone: every row takes its quantity out of
    `from_location` and into `to_location` (a row that moves nothing names one location twice), so
    on-hand per lot key is what arrived less what left; lot allocations are allocations less
    releases and shipments; a unit is where (and in the status) its latest row left it."""
    lots: dict[LotKey, int] = defaultdict(int)
    allocated: dict[LotKey, int] = defaultdict(int)
    rows = Movement.objects.filter(unit__isnull=True).order_by()
    key_fields = ("part_id", "owner_id", "customs_status", "customs_reference")
    for end, sign in (("to_location_id", 1), ("from_location_id", -1)):
        for row in rows.exclude(**{end: None}).values(*key_fields, end).annotate(n=Sum("quantity")):
            key = (row["part_id"], row[end], row["owner_id"], row["customs_status"], row["customs_reference"])
            lots[key] += sign * row["n"]
    effect = {MovementKind.ALLOCATION: 1, MovementKind.RELEASE: -1, MovementKind.SHIPMENT: -1}
    for row in (
        rows.filter(kind__in=effect)
        .values("kind", *key_fields, "from_location_id")
        .annotate(n=Sum("quantity"))
    ):
        key = (
            row["part_id"],
            row["from_location_id"],
            row["owner_id"],
            row["customs_status"],
            row["customs_reference"],
        )
        allocated[key] += effect[row["kind"]] * row["n"]
    units: dict[int, int] = {}
    statuses: dict[int, str] = {}
    latest = Movement.objects.filter(unit__isnull=False).order_by("unit_id", "id")
    for unit, location, status in latest.values_list("unit_id", "to_location_id", "status_after").iterator():
        statuses[unit] = status  # rows come oldest first: the last one per unit wins
        if location is None:
            units.pop(unit, None)
        else:
            units[unit] = location
    return StockPicture(
        lots={k: n for k, n in lots.items() if n},
        allocated={k: n for k, n in allocated.items() if n},
        units=units,
        statuses=statuses,
    )


def stock_on_hand() -> StockPicture:
    """Stock as the lot and placement tables hold it (the statuses of units the ledger names)."""
    lots, allocated = {}, {}
    for lot in Lot.objects.values_list(
        "part_id", "location_id", "owner_id", "customs_status", "customs_reference", "quantity", "allocated"
    ):
        key = lot[:5]
        if lot[5]:
            lots[key] = lot[5]
        if lot[6]:
            allocated[key] = lot[6]
    handled = Movement.objects.filter(unit__isnull=False).values("unit_id")
    return StockPicture(
        lots=lots,
        allocated=allocated,
        units=dict(UnitPlacement.objects.values_list("unit_id", "location_id")),
        statuses=dict(Unit.objects.filter(pk__in=handled).values_list("pk", "status")),
    )


def lots_at(location_id: int):
    """A location's lots with stock, for a count sheet."""
    return Lot.objects.filter(location_id=location_id, quantity__gt=0).select_related("part", "owner")


# --- what is expected at a warehouse -----------------------------------------------------------------

# How far ahead "this week" looks, and how far back "received" looks (days).
EXPECTED_AHEAD_DAYS = 7
RECEIVED_BACK_DAYS = 7


class ArrivalBucket(TextChoices):
    OVERDUE = "overdue", "Overdue"
    TODAY = "today", "Due today"
    WEEK = "week", "Due this week"
    UNDATED = "undated", "No arrival date yet"
    RECEIVED = "received", "Received"


@dataclass
class Arrival:
    """One arrival expected at (or received by) a warehouse: an inbound leg ending there, or a
    shipment with no leg ending there whose destination it is."""

    shipment: Any
    leg: Any | None
    eta: dt.date | None
    units: int
    weight_kg: Decimal
    packages: int
    bucket: str
    receipt: Any | None = None

    @property
    def origin(self):
        return self.leg.origin if self.leg is not None else self.shipment.origin


def warehouse_sites(user):
    """The sites with locations `user` may see: the warehouses an operator picks from."""
    from apps.shipments.models import Site

    located = Location.objects.visible_to(user, VIEW).filter(is_active=True).values("site")
    return Site.objects.visible_to(user, VIEW).filter(pk__in=located).order_by("name")


def expected_arrivals(user, site, today: dt.date) -> list[Arrival]:
    """What `site` expects, among the shipments `user` may see: inbound legs ending there and
    shipments bound there with no such leg, not received yet, due by a week from `today` (overdue
    first), or with no date yet; and what was received there in the last week, with its receipt.

    Units and weight: a leg carrying named lines counts those lines (catalogue weight); a whole
    shipment counts its lines and weighs its packages' gross (catalogue weight while unpacked).
    A fixed number of queries whatever the number of arrivals."""
    from apps.shipments.models import Leg, Package, Shipment, ShipmentLine

    from .models import Receipt
    from .services.receipts import RECEIVABLE

    shipments = Shipment.objects.visible_to(user, VIEW)
    horizon = today + dt.timedelta(days=EXPECTED_AHEAD_DAYS)
    since = today - dt.timedelta(days=RECEIVED_BACK_DAYS)
    receipts = {
        (r.shipment_id, r.leg_id): r
        for r in Receipt.objects.filter(
            location__site=site, shipment__in=shipments.values("pk"), received_at__date__gte=since
        ).select_related("received_by", "location")
    }
    legs = list(
        Leg.objects.filter(destination=site, shipment__in=shipments.values("pk"))
        .filter(
            Q(shipment__status__in=RECEIVABLE)
            & (Q(planned_arrival__lte=horizon) | Q(planned_arrival__isnull=True))
            & ~Exists(Receipt.objects.filter(leg=OuterRef("pk")))
            | Q(pk__in=[leg_id for _, leg_id in receipts if leg_id])
        )
        .select_related("shipment", "origin")
        .annotate(carried=Count("lines"))
        .order_by("planned_arrival", "pk")
    )
    by_leg = {
        row["leg"]: row
        for row in ShipmentLine.objects.filter(legs__in=[leg.pk for leg in legs])
        .values("legs")
        .annotate(
            leg=F("legs"),
            n=Sum("quantity"),
            kg=Sum(F("quantity") * F("part__unit_weight_kg"), output_field=DecimalField()),
        )
        .values("leg", "n", "kg")
    }
    with_leg_here = Leg.objects.filter(destination=site).values("shipment")
    whole = list(
        shipments.filter(destination=site)
        .exclude(pk__in=with_leg_here)
        .filter(
            Q(status__in=RECEIVABLE)
            & (Q(eta__lte=horizon) | Q(eta__isnull=True))
            & ~Exists(Receipt.objects.filter(shipment=OuterRef("pk"), leg__isnull=True))
            | Q(pk__in=[shipment_id for shipment_id, leg_id in receipts if leg_id is None])
        )
        .select_related("origin")
        .order_by("eta", "pk")
    )
    # A leg carrying no named lines carries the whole shipment: it is summed with the shipments.
    entire = {leg.shipment_id for leg in legs if not leg.carried} | {s.pk for s in whole}
    by_shipment = {
        row["shipment"]: row
        for row in ShipmentLine.objects.filter(shipment__in=entire)
        .values("shipment")
        .annotate(
            n=Sum("quantity"), kg=Sum(F("quantity") * F("part__unit_weight_kg"), output_field=DecimalField())
        )
    }
    packed = {
        row["shipment"]: row
        for row in Package.objects.filter(shipment__in=entire)
        .values("shipment")
        .annotate(n=Count("pk"), kg=Sum("gross_kg"))
    }

    def bucket(eta, receipt) -> str:
        if receipt is not None:
            return ArrivalBucket.RECEIVED
        if eta is None:
            return ArrivalBucket.UNDATED
        if eta < today:
            return ArrivalBucket.OVERDUE
        return ArrivalBucket.TODAY if eta == today else ArrivalBucket.WEEK

    def whole_figures(shipment_id):
        lines, boxes = by_shipment.get(shipment_id, {}), packed.get(shipment_id, {})
        weight = boxes.get("kg") or lines.get("kg") or Decimal(0)
        return lines.get("n") or 0, weight, boxes.get("n") or 0

    arrivals = []
    for leg in legs:
        receipt = receipts.get((leg.shipment_id, leg.pk))
        eta = leg.actual_arrival.date() if leg.actual_arrival else leg.planned_arrival
        if leg.carried:
            row = by_leg.get(leg.pk, {})
            units, weight, boxes = row.get("n") or 0, row.get("kg") or Decimal(0), 0
        else:
            units, weight, boxes = whole_figures(leg.shipment_id)
        arrivals.append(Arrival(leg.shipment, leg, eta, units, weight, boxes, bucket(eta, receipt), receipt))
    for shipment in whole:
        receipt = receipts.get((shipment.pk, None))
        units, weight, boxes = whole_figures(shipment.pk)
        arrivals.append(
            Arrival(
                shipment, None, shipment.eta, units, weight, boxes, bucket(shipment.eta, receipt), receipt
            )
        )
    order = list(ArrivalBucket.values)
    far = dt.date.max
    arrivals.sort(key=lambda a: (order.index(a.bucket), a.eta or far, a.shipment.reference))
    return arrivals


# --- answering a scan at once ------------------------------------------------------------------------


class ScanVerdict(TextChoices):
    EXPECTED = "expected", "Expected"
    EXTRA = "extra", "Extra"
    DUPLICATE = "duplicate", "Scanned already"
    OTHER_SHIPMENT = "other_shipment", "Belongs to another shipment"
    KNOWN_ELSEWHERE = "known_elsewhere", "Known unit elsewhere"


def _where(placement) -> str:
    return f"{placement.location.site.name} {placement.location.code}"


def _not_here(user, serial: str, shipment) -> dict | None:
    """A serial that is not this shipment's: on another shipment `user` sees, or a unit the books
    have somewhere (in a warehouse, or its status); None when nothing is known of it."""
    from apps.shipments.models import LineSerial, Shipment

    other = (
        LineSerial.objects.filter(
            unit__serial__iexact=serial,
            line__shipment__in=Shipment.objects.visible_to(user, VIEW).exclude(pk=shipment.pk).values("pk"),
        )
        .select_related("line__shipment")
        .order_by("-line__shipment__created_at")
        .first()
    )
    if other is not None:
        theirs = other.line.shipment
        return {
            "verdict": ScanVerdict.OTHER_SHIPMENT,
            "message": f"{serial} belongs to {theirs.reference} (line {other.line.line_number}), "
            f"not to {shipment.reference}: set it aside.",
        }
    unit = (
        visible_units(user)
        .filter(serial__iexact=serial)
        .select_related("part", "placement__location__site")
        .first()
    )
    if unit is None:
        return None
    placement = getattr(unit, "placement", None)
    where = f"in stock at {_where(placement)}" if placement else unit.get_status_display().lower()
    return {
        "verdict": ScanVerdict.KNOWN_ELSEWHERE,
        "message": f"{serial} is a known unit ({unit.part.part_number}), "
        f"{where}: not on {shipment.reference}'s notice.",
    }


def receive_scan_verdict(user, *, shipment, leg, serial: str) -> dict:
    """What a serial scanned while receiving `shipment` (its `leg`, if one) is, at once: expected
    (its line and package), on this shipment but another leg, on another shipment, a unit the books
    have elsewhere, or an extra. Only a read: the receipt is recorded once, at the end, by
    `services.receipts.receipt_record`, which checks everything again. Five queries at most."""
    from apps.shipments.models import LineSerial

    serial = serial.strip()
    answer = {"serial": serial, "line": None, "package": None}
    row = (
        LineSerial.objects.filter(line__shipment=shipment, unit__serial__iexact=serial)
        .select_related("line", "package", "unit")
        .first()
    )
    if row is not None:
        carried = set(leg.lines.values_list("pk", flat=True)) if leg is not None else set()
        if carried and row.line_id not in carried:
            return answer | {
                "verdict": ScanVerdict.OTHER_SHIPMENT,
                "message": f"{row.unit.serial} is on line {row.line.line_number} of {shipment.reference}, "
                f"carried by another leg, not leg {leg.sequence}.",
            }
        placement = UnitPlacement.objects.filter(unit_id=row.unit_id).select_related("location__site").first()
        if placement is not None:
            return answer | {
                "verdict": ScanVerdict.KNOWN_ELSEWHERE,
                "line": row.line.line_number,
                "message": f"{row.unit.serial} is on the notice, but the books have it in stock at "
                f"{_where(placement)} already: the receipt will refuse it until that is put right.",
            }
        package = row.package.number if row.package_id else None
        return answer | {
            "serial": row.unit.serial,
            "verdict": ScanVerdict.EXPECTED,
            "line": row.line.line_number,
            "package": package,
            "message": f"{row.unit.serial}: line {row.line.line_number}"
            + (f", package {package}" if package else "")
            + ".",
        }
    elsewhere = _not_here(user, serial, shipment)
    if elsewhere is not None:
        return answer | elsewhere
    return answer | {
        "verdict": ScanVerdict.EXTRA,
        "message": f"{serial} is not on {shipment.reference}'s notice: it will be recorded as an extra.",
    }


def pack_scan_verdict(user, *, shipment, serial: str) -> dict:
    """What a serial scanned while packing `shipment` is when it is not one of the picked units the
    page offers (those are ticked in the page itself): packed already, allocated to another
    shipment, in stock but not picked, or unknown."""
    from apps.shipments.models import LineSerial

    serial = serial.strip()
    answer = {"serial": serial, "line": None, "package": None}
    row = (
        LineSerial.objects.filter(line__shipment=shipment, unit__serial__iexact=serial)
        .select_related("line", "package")
        .first()
    )
    if row is not None and row.package_id:
        return answer | {
            "verdict": ScanVerdict.DUPLICATE,
            "line": row.line.line_number,
            "package": row.package.number,
            "message": f"{serial} is packed already, in package {row.package.number}.",
        }
    placement = (
        UnitPlacement.objects.filter(unit__in=visible_units(user).filter(serial__iexact=serial))
        .select_related("location__site", "line__shipment", "unit")
        .first()
    )
    if placement is not None:
        if placement.line_id and placement.line.shipment_id != shipment.pk:
            return answer | {
                "verdict": ScanVerdict.OTHER_SHIPMENT,
                "message": f"{serial} is allocated to {placement.line.shipment.reference}, not to "
                f"{shipment.reference}: put it back at {placement.location.code}.",
            }
        return answer | {
            "verdict": ScanVerdict.KNOWN_ELSEWHERE,
            "message": f"{serial} is {placement.unit.get_status_display().lower()} at {_where(placement)}: "
            f"pick it for {shipment.reference} first.",
        }
    elsewhere = _not_here(user, serial, shipment)
    if elsewhere is not None:
        return answer | elsewhere
    return answer | {"verdict": ScanVerdict.EXTRA, "message": f"{serial} is not a unit the books know."}
