"""Reads for the warehouse: the units a user may see (one rule for the pages and the API), stock
as the tables hold it, and the same picture rebuilt from the movement ledger alone (the two must
always agree)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Q, Sum

from apps.catalog.models import Unit
from apps.core.scoping import VIEW

from .models import Lot, Movement, MovementKind, UnitPlacement

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
