"""One FilterSet per warehouse list (units, lots, locations, the movement ledger, receipts), for
the pages and the API alike."""

import django_filters
from django.db.models import Q

from apps.catalog.models import CustomsStatus, Part, UnitStatus
from apps.core.filters import DATE, SearchFilterSet
from apps.core.search import SearchTermsFilter
from apps.core.sorting import SortFilter
from apps.shipments.models import Site

from .models import (
    WAREHOUSE_KINDS,
    Location,
    Lot,
    Movement,
    MovementKind,
    Receipt,
    ReceiptStatus,
    UnitPlacement,
)

# Customs statuses stock can have in a warehouse ("not in a warehouse" is not one).
STOCK_CUSTOMS = [(value, label) for value, label in CustomsStatus.choices if value]


def _warehouses(request):
    return Site.objects.filter(kind__in=WAREHOUSE_KINDS).order_by("name")


def _locations(request):
    return Location.objects.select_related("site").order_by("site__name", "zone", "aisle", "rack", "bin")


def _parts(request):
    return Part.objects.select_related("manufacturer").order_by("part_number")


class StockFilter(SearchFilterSet):
    """Serialised units on hand (one row per unit in a warehouse)."""

    q = SearchTermsFilter(method="search", label="Serial or part")
    part = django_filters.ModelChoiceFilter(field_name="unit__part", queryset=_parts, label="Part")
    warehouse = django_filters.ModelChoiceFilter(
        field_name="location__site", queryset=_warehouses, label="Warehouse"
    )
    location = django_filters.ModelChoiceFilter(queryset=_locations, label="Location")
    status = django_filters.ChoiceFilter(
        field_name="unit__status",
        choices=[c for c in UnitStatus.choices if c[0] not in ("expected", "shipped")],
        label="Status",
        empty_label="Any",
    )
    customs_status = django_filters.ChoiceFilter(
        field_name="unit__customs_status", choices=STOCK_CUSTOMS, label="Customs status", empty_label="Any"
    )
    sort = SortFilter(
        fields=(
            ("unit__serial", "serial"),
            ("unit__part__part_number", "part"),
            ("location__site__name,location__zone,location__aisle,location__rack,location__bin", "location"),
            ("unit__status", "status"),
            ("unit__customs_status", "customs"),
            ("unit__part__unit_value", "value"),
            # Oldest first: the longest in stock first.
            ("created_at", "received"),
        ),
        label="Sort",
    )

    class Meta:
        model = UnitPlacement
        fields = ["q", "part", "warehouse", "location", "status", "customs_status"]

    search_fields = ("unit__serial", "unit__part__part_number", "unit__part__name")


class LotFilter(SearchFilterSet):
    """Non-serialised goods on hand (lots with a quantity)."""

    q = SearchTermsFilter(method="search", label="Part")
    part = django_filters.ModelChoiceFilter(queryset=_parts, label="Part")
    warehouse = django_filters.ModelChoiceFilter(
        field_name="location__site", queryset=_warehouses, label="Warehouse"
    )
    location = django_filters.ModelChoiceFilter(queryset=_locations, label="Location")
    customs_status = django_filters.ChoiceFilter(
        choices=STOCK_CUSTOMS, label="Customs status", empty_label="Any"
    )
    sort = SortFilter(
        fields=(
            ("part__part_number", "part"),
            ("location__site__name,location__zone,location__aisle,location__rack,location__bin", "location"),
            ("customs_status", "customs"),
            ("quantity", "quantity"),
            ("allocated", "allocated"),
            ("created_at", "received"),
        ),
        label="Sort",
    )

    class Meta:
        model = Lot
        fields = ["q", "part", "warehouse", "location", "customs_status"]

    search_fields = ("part__part_number", "part__name")


class LocationFilter(django_filters.FilterSet):
    q = SearchTermsFilter(method="search", label="Code")
    warehouse = django_filters.ModelChoiceFilter(field_name="site", queryset=_warehouses, label="Warehouse")
    sort = SortFilter(
        fields=(("site__name,zone,aisle,rack,bin", "location"), ("is_active", "active")),
        label="Sort",
    )

    class Meta:
        model = Location
        fields = ["q", "warehouse", "is_active"]

    def search(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        terms = Q()
        for part in value.upper().replace("-", " ").split():
            terms &= Q(zone=part) | Q(aisle=part) | Q(rack=part) | Q(bin=part)
        return queryset.filter(terms)


class MovementFilter(SearchFilterSet):
    q = SearchTermsFilter(method="search", label="Serial, part or reference")
    kind = django_filters.ChoiceFilter(choices=MovementKind.choices, label="Kind", empty_label="Any")
    part = django_filters.ModelChoiceFilter(queryset=_parts, label="Part")
    warehouse = django_filters.ModelChoiceFilter(
        method="filter_warehouse", queryset=_warehouses, label="Warehouse"
    )
    location = django_filters.ModelChoiceFilter(
        method="filter_location", queryset=_locations, label="Location"
    )
    after = django_filters.DateFilter(
        field_name="occurred_at", lookup_expr="date__gte", label="On or after", widget=DATE
    )
    before = django_filters.DateFilter(
        field_name="occurred_at", lookup_expr="date__lte", label="On or before", widget=DATE
    )
    sort = SortFilter(
        fields=(
            ("occurred_at", "when"),
            ("kind", "kind"),
            ("part__part_number", "part"),
            ("quantity", "quantity"),
        ),
        label="Sort",
    )

    class Meta:
        model = Movement
        fields = ["q", "kind", "part", "warehouse", "location", "after", "before"]

    search_fields = ("unit__serial", "part__part_number", "customs_reference", "reason")

    def filter_warehouse(self, queryset, name, value):
        return (
            queryset.filter(Q(from_location__site=value) | Q(to_location__site=value)) if value else queryset
        )

    def filter_location(self, queryset, name, value):
        return queryset.filter(Q(from_location=value) | Q(to_location=value)) if value else queryset


class ReceiptFilter(django_filters.FilterSet):
    q = SearchTermsFilter(method="search", label="Receipt or shipment")
    status = django_filters.ChoiceFilter(choices=ReceiptStatus.choices, empty_label="Any")
    sort = SortFilter(fields=(("received_at", "received_at"), ("reference", "reference")))

    class Meta:
        model = Receipt
        fields = ["status"]

    def search(self, queryset, name, terms):
        for term in terms.split():
            queryset = queryset.filter(Q(reference__icontains=term) | Q(shipment__reference__icontains=term))
        return queryset
