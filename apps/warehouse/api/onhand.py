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


def _columns(kind: str, status, *, units: bool) -> dict:
    """One row's columns, by the same names and in the same order for placements and lots (the
    two sides of the UNION). The names differ from the models' own fields, which `values()`
    would otherwise refuse as clashing annotations."""
    via = "unit__" if units else ""
    return {
        "row_kind": Value(kind, output_field=CharField()),
        "part_key": F(f"{via}part_id"),
        "part_number": F(f"{via}part__part_number"),
        "part_name": F(f"{via}part__name"),
        "part_value": F(f"{via}part__unit_value"),
        "part_currency": F(f"{via}part__currency"),
        "warehouse_key": F("location__site_id"),
        "warehouse_name": F("location__site__name"),
        "location_key": F("location_id"),
        "zone_": F("location__zone"),
        "aisle_": F("location__aisle"),
        "rack_": F("location__rack"),
        "bin_": F("location__bin"),
        "row_status": status,
        "customs": F(f"{via}customs_status"),
    }


def on_hand_rows(*, placements: QuerySet[UnitPlacement], lots: QuerySet[Lot], status: str = "") -> QuerySet:
    """Rows of stock on hand from these (already scoped and filtered) placements and lots: units
    per unit status; a lot's free pieces as `available` and its allocated ones as `allocated`.
    Each row has `pieces` and `since` (when its oldest piece arrived: a unit's receipt into the
    warehouse it is in, a lot's first receipt)."""
    rows = [
        placements.order_by()
        .values(**_columns("units", F("unit__status"), units=True))
        .annotate(pieces=Count("pk"), since=Min("created_at"))
    ]
    lots = lots.order_by()
    if status in ("", UnitStatus.AVAILABLE):
        free = Value(UnitStatus.AVAILABLE.value, output_field=CharField())
        rows.append(
            lots.filter(quantity__gt=F("allocated"))
            .values(**_columns("lot", free, units=False))
            .annotate(pieces=Sum(F("quantity") - F("allocated")), since=Min("created_at"))
        )
    if status in ("", UnitStatus.ALLOCATED):
        allocated = Value(UnitStatus.ALLOCATED.value, output_field=CharField())
        rows.append(
            lots.filter(allocated__gt=0)
            .values(**_columns("lot", allocated, units=False))
            .annotate(pieces=Sum("allocated"), since=Min("created_at"))
        )
    return rows[0].union(*rows[1:], all=True).order_by(*ORDER)
