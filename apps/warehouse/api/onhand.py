"""Stock on hand grouped in the database: the reader behind `GET /api/v1/stock/on-hand/`.

A selector (it belongs with `apps/warehouse/selectors.py`, which keeps the whole-warehouse
`StockPicture`; this one groups and pages a user's view of it). One UNION of unit placements and
lots, grouped by part × warehouse × location × status × customs status, so a page costs two
queries (its count and its rows) whatever the number of units."""

from __future__ import annotations

from django.db.models import CharField, Count, F, Min, QuerySet, Sum, Value

from apps.catalog.models import UnitStatus

from ..models import Lot, UnitPlacement

ORDER = (
    "part_number",
    "warehouse_name",
    "zone_",
    "aisle_",
    "rack_",
    "bin_",
    "row_status",
    "customs",
    "row_kind",
)


def _keys(kind: str, status, *, units: bool) -> dict:
    """What makes one row — part, location, status, customs status — by the same names and in the
    same order for placements and lots (the two sides of the UNION). The names differ from the
    models' own fields, which `values()` would otherwise refuse as clashing annotations."""
    via = "unit__" if units else ""
    return {
        "row_kind": Value(kind, output_field=CharField()),
        "part_key": F(f"{via}part_id"),
        "location_key": F("location_id"),
        "row_status": status,
        "customs": F(f"{via}customs_status"),
    }


def _labels(*, units: bool) -> dict:
    """A row's names and figures, each a function of its part or its location: carried through the
    grouping as MIN() rather than grouped by. Grouping by them too made the database sort every
    unit by fourteen text columns (1.9 s of 2.6 s at 100,000 units, bench/bench_stock_list.py);
    grouped by the four keys alone the same rows take about a third of that. (Not subqueries by
    primary key: Django groups by those too, and they then run once per unit.)"""
    via = "unit__" if units else ""
    return {
        "part_number": Min(f"{via}part__part_number"),
        "part_name": Min(f"{via}part__name"),
        "part_value": Min(f"{via}part__unit_value"),
        "part_currency": Min(f"{via}part__currency"),
        "warehouse_key": Min("location__site_id"),
        "warehouse_name": Min("location__site__name"),
        "zone_": Min("location__zone"),
        "aisle_": Min("location__aisle"),
        "rack_": Min("location__rack"),
        "bin_": Min("location__bin"),
    }


def on_hand_rows(*, placements: QuerySet[UnitPlacement], lots: QuerySet[Lot], status: str = "") -> QuerySet:
    """Rows of stock on hand from these (already scoped and filtered) placements and lots: units
    per unit status; a lot's free pieces as `available` and its allocated ones as `allocated`.
    Each row has `pieces` and `since` (when its oldest piece arrived: a unit's receipt into the
    warehouse it is in, a lot's first receipt)."""
    rows = [
        placements.order_by()
        .values(**_keys("units", F("unit__status"), units=True))
        .annotate(**_labels(units=True), pieces=Count("pk"), since=Min("created_at"))
    ]
    lots = lots.order_by()
    if status in ("", UnitStatus.AVAILABLE):
        free = Value(UnitStatus.AVAILABLE.value, output_field=CharField())
        rows.append(
            lots.filter(quantity__gt=F("allocated"))
            .values(**_keys("lot", free, units=False))
            .annotate(
                **_labels(units=False), pieces=Sum(F("quantity") - F("allocated")), since=Min("created_at")
            )
        )
    if status in ("", UnitStatus.ALLOCATED):
        allocated = Value(UnitStatus.ALLOCATED.value, output_field=CharField())
        rows.append(
            lots.filter(allocated__gt=0)
            .values(**_keys("lot", allocated, units=False))
            .annotate(**_labels(units=False), pieces=Sum("allocated"), since=Min("created_at"))
        )
    return rows[0].union(*rows[1:], all=True).order_by(*ORDER)
