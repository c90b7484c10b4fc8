"""One FilterSet per list, for the API and the browser pages."""

import django_filters
from django.db.models import Q

from apps.core.countries import COUNTRY_CHOICES
from apps.core.filters import DATE, SearchFilterSet
from apps.core.search import SearchTermsFilter
from apps.core.sorting import SortFilter

from . import hooks
from .models import (
    ExchangeRate,
    FreightRate,
    Incoterm,
    Shipment,
    ShipmentStatus,
    Site,
    SiteKind,
    TransportMode,
)
from .selectors import OPEN_Q, late_q


class ShipmentFilter(SearchFilterSet):
    q = SearchTermsFilter(method="search", label="Search")
    status = django_filters.MultipleChoiceFilter(choices=ShipmentStatus.choices)
    mode = django_filters.ChoiceFilter(choices=TransportMode.choices)
    incoterm = django_filters.ChoiceFilter(choices=Incoterm.choices)
    destination_country = django_filters.ChoiceFilter(
        field_name="destination__country", choices=COUNTRY_CHOICES, label="Destination country"
    )
    origin_country = django_filters.ChoiceFilter(
        field_name="origin__country", choices=COUNTRY_CHOICES, label="Origin country"
    )
    # "Any", not django's "Unknown", when no choice is made, and a value other than true / false
    # is an error named on the page (400 in the API), never silently the whole list.
    late = django_filters.ChoiceFilter(
        method="filter_late",
        label="Late",
        choices=[("true", "Late only"), ("false", "On time only")],
        empty_label="Any",
    )
    # Not delivered and not cancelled: what is still under way (the dashboard's "open" tiles).
    open = django_filters.ChoiceFilter(
        method="filter_open",
        label="Open",
        choices=[("true", "Open only"), ("false", "Delivered or cancelled only")],
        empty_label="Any",
    )
    # What a role has to do (the dashboards' tiles): the conditions are registered by the apps that
    # know them (hooks.need_condition), each tile counts with the same condition.
    needs = django_filters.ChoiceFilter(
        method="filter_needs", label="Needs", choices=list(hooks.NEEDS.items()), empty_label="Anything"
    )
    required_before = django_filters.DateFilter(
        field_name="required_by", lookup_expr="lte", label="Required on or before", widget=DATE
    )
    required_after = django_filters.DateFilter(
        field_name="required_by", lookup_expr="gte", label="Required on or after", widget=DATE
    )

    # Sortable columns: `sort=required_by` or `sort=-required_by`; any other value is named.
    sort = SortFilter(
        fields=(
            ("reference", "reference"),
            ("status", "status"),
            ("mode", "mode"),
            ("required_by", "required_by"),
            ("eta", "eta"),
            ("created_at", "created"),
        ),
        label="Sort",
    )

    class Meta:
        model = Shipment
        fields = ["q", "status", "mode", "destination_country", "late"]

    search_fields = ("reference", "destination__city", "origin__city", "incoterm_place")

    def filter_late(self, queryset, name, value):
        if value in (None, ""):
            return queryset
        return queryset.filter(late_q()) if value == "true" else queryset.exclude(late_q())

    def filter_open(self, queryset, name, value):
        if value in (None, ""):
            return queryset
        return queryset.filter(OPEN_Q) if value == "true" else queryset.exclude(OPEN_Q)

    def filter_needs(self, queryset, name, value):
        if value in (None, ""):
            return queryset
        condition = hooks.need_q(value, getattr(self.request, "user", None))
        return queryset.none() if condition is None else queryset.filter(condition)


class SiteFilter(django_filters.FilterSet):
    q = SearchTermsFilter(method="search", label="Search")
    kind = django_filters.ChoiceFilter(choices=SiteKind.choices)
    country = django_filters.ChoiceFilter(choices=COUNTRY_CHOICES)
    # Sortable columns; any other `sort=` value is named on the page (400 in the API).
    sort = SortFilter(
        fields=(
            ("name", "name"),
            ("kind", "kind"),
            ("city", "city"),
            ("country", "country"),
            ("owner__legal_name", "owner"),
        ),
        label="Sort",
    )

    class Meta:
        model = Site
        fields = ["q", "kind", "country", "is_bonded"]

    def search(self, queryset, name, value):
        return queryset.filter(
            Q(name__icontains=value)
            | Q(city__icontains=value)
            | Q(iata_code__iexact=value)
            | Q(unlocode__iexact=value)
        )


class FreightRateFilter(django_filters.FilterSet):
    valid_on = django_filters.DateFilter(method="filter_valid_on", label="Valid on", widget=DATE)
    # Sortable columns: "lane" sorts by origin, then destination country.
    sort = SortFilter(
        fields=(
            ("origin_country,destination_country", "lane"),
            ("mode", "mode"),
            ("service", "service"),
            ("price_per_kg", "per_kg"),
            ("minimum_charge", "minimum"),
            ("transit_days", "days"),
            ("valid_from", "valid_from"),
            ("valid_to", "valid_to"),
        ),
        label="Sort",
    )

    class Meta:
        model = FreightRate
        fields = ["origin_country", "destination_country", "mode", "valid_on"]

    def filter_valid_on(self, queryset, name, value):
        return queryset.filter(valid_from__lte=value, valid_to__gte=value)


class ExchangeRateFilter(django_filters.FilterSet):
    valid_on_or_before = django_filters.DateFilter(field_name="valid_on", lookup_expr="lte", widget=DATE)

    class Meta:
        model = ExchangeRate
        fields = ["base", "quote", "valid_on", "valid_on_or_before"]
