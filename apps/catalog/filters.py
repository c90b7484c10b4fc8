"""One FilterSet for the parts page and `/api/v1/parts/`."""

import django_filters
from django.db.models import Q

from apps.core.countries import COUNTRY_CHOICES
from apps.core.search import SearchTermsFilter

from .models import Manufacturer, Part, PartCategory


class PartFilter(django_filters.FilterSet):
    q = SearchTermsFilter(method="search", label="Search")
    category = django_filters.ChoiceFilter(choices=PartCategory.choices)
    manufacturer = django_filters.ModelChoiceFilter(queryset=Manufacturer.objects.all())
    country_of_origin = django_filters.ChoiceFilter(choices=COUNTRY_CHOICES, label="Country of origin")
    hs_code = django_filters.CharFilter(
        field_name="hs_code", lookup_expr="startswith", label="HS code starts with"
    )
    is_serialised = django_filters.BooleanFilter()
    contains_lithium_batteries = django_filters.BooleanFilter()
    min_power_w = django_filters.NumberFilter(
        field_name="power_draw_w", lookup_expr="gte", label="Power ≥ (W)"
    )
    max_power_w = django_filters.NumberFilter(
        field_name="power_draw_w", lookup_expr="lte", label="Power ≤ (W)"
    )
    is_active = django_filters.BooleanFilter()

    # Sortable columns: `sort=part_number`, `sort=-unit_value`; any other value is named.
    sort = django_filters.OrderingFilter(
        fields=(
            ("part_number", "part_number"),
            ("manufacturer__name", "manufacturer"),
            ("name", "name"),
            ("category", "category"),
            ("hs_code", "hs_code"),
            ("unit_value", "unit_value"),
            ("unit_weight_kg", "weight"),
            ("power_draw_w", "power"),
        ),
        label="Sort",
    )

    class Meta:
        model = Part
        fields = ["q", "category", "manufacturer", "country_of_origin", "hs_code"]

    def search(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        condition = Q()
        for term in value.split():
            condition &= (
                Q(part_number__icontains=term)
                | Q(name__icontains=term)
                | Q(description__icontains=term)
                | Q(manufacturer__name__icontains=term)
                | Q(hs_code__startswith=term)
            )
        return queryset.filter(condition)
