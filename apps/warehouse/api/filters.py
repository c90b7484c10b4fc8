"""API filters of the stock lists. Lots, locations and the ledger use the browser pages' FilterSets
(`apps/warehouse/filters.py`: one FilterSet serves both); the units registry and the on-hand
summary, which have no page of their own, are filtered here."""

from __future__ import annotations

import django_filters
from django.db.models import F, Q
from django.db.models.functions import Lower
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from apps.catalog.models import CustomsStatus, Part, Unit, UnitStatus
from apps.shipments.models import Site

from ..filters import MovementFilter
from ..models import WAREHOUSE_KINDS, Location, UnitPlacement

STOCK_CUSTOMS = [(value, label) for value, label in CustomsStatus.choices if value]
# Statuses a unit in a warehouse can have (expected and shipped units are not on hand).
STOCK_STATUSES = [
    (value, label) for value, label in UnitStatus.choices if value not in ("expected", "shipped")
]


@extend_schema_field(OpenApiTypes.INT)
class IdFilter(django_filters.ModelChoiceFilter):
    """An object by id, applied by the FilterSet's `method` (the schema cannot tell the type)."""


def _parts(request):
    return Part.objects.all()


def _warehouses(request):
    return Site.objects.filter(kind__in=WAREHOUSE_KINDS)


def _locations(request):
    return Location.objects.all()


def _units(request):
    return Unit.objects.all()


class UnitFilter(django_filters.FilterSet):
    """Serialised units, wherever they are."""

    part = django_filters.ModelChoiceFilter(queryset=_parts)
    serial = django_filters.CharFilter(
        method="filter_serial", help_text="Exact serial number, in any case (`qt0001` is `QT0001`)."
    )
    status = django_filters.ChoiceFilter(choices=UnitStatus.choices)
    customs_status = django_filters.ChoiceFilter(choices=CustomsStatus.choices)
    warehouse = django_filters.ModelChoiceFilter(
        field_name="placement__location__site", queryset=_warehouses, help_text="Units in this warehouse."
    )
    location = django_filters.ModelChoiceFilter(
        field_name="placement__location", queryset=_locations, help_text="Units at this location."
    )

    class Meta:
        model = Unit
        fields = ["part", "serial", "status", "customs_status", "warehouse", "location"]

    def filter_serial(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        return queryset.annotate(serial_key=Lower("serial")).filter(serial_key=value.lower())


class LedgerFilter(MovementFilter):
    """The movement ledger: the page's filters, and the unit a row moved."""

    unit = django_filters.ModelChoiceFilter(queryset=_units, help_text="Rows of this serialised unit.")
    warehouse = IdFilter(method="filter_warehouse", queryset=_warehouses, help_text="Rows in or out of it.")
    location = IdFilter(method="filter_location", queryset=_locations, help_text="Rows in or out of it.")

    class Meta(MovementFilter.Meta):
        fields = [*MovementFilter.Meta.fields, "unit"]


class OnHandFilter(django_filters.FilterSet):
    """Stock on hand. It filters two querysets — unit placements and lots — so every filter names
    the field of each (`filter_field`)."""

    part = IdFilter(queryset=_parts, method="filter_field")
    warehouse = IdFilter(queryset=_warehouses, method="filter_field")
    location = IdFilter(queryset=_locations, method="filter_field")
    status = django_filters.ChoiceFilter(
        choices=STOCK_STATUSES,
        method="filter_field",
        help_text="Units in this status; a lot's free pieces are `available`, allocated ones `allocated`.",
    )
    customs_status = django_filters.ChoiceFilter(choices=STOCK_CUSTOMS, method="filter_field")

    # (units, lots): the field each filter reads on UnitPlacement and on Lot.
    FIELDS = {
        "part": ("unit__part", "part"),
        "warehouse": ("location__site", "location__site"),
        "location": ("location", "location"),
        "customs_status": ("unit__customs_status", "customs_status"),
    }

    def filter_field(self, queryset, name, value):
        if value in (None, ""):
            return queryset
        units = queryset.model is UnitPlacement
        if name == "status":
            if units:
                return queryset.filter(unit__status=value)
            # A lot holds pieces free (available) and allocated, nothing else; the view keeps the
            # lot rows of the status asked for.
            if value == UnitStatus.AVAILABLE:
                return queryset.filter(quantity__gt=F("allocated"))
            if value == UnitStatus.ALLOCATED:
                return queryset.filter(allocated__gt=0)
            return queryset.none()
        field = self.FIELDS[name][0 if units else 1]
        return queryset.filter(Q(**{field: value}))
