"""FilterSets for the compliance pages."""

import django_filters
from django.db.models import Q

from apps.core.search import SearchTermsFilter
from apps.core.sorting import SortFilter

from .models import Licence


class LicenceFilter(django_filters.FilterSet):
    q = SearchTermsFilter(method="search", label="Search")
    # Sortable columns; any other `sort=` value is named on the page.
    sort = SortFilter(
        fields=(
            ("number", "number"),
            ("licensee__legal_name", "licensee"),
            ("consignee__legal_name", "consignee"),
            ("valid_from", "valid_from"),
            ("expires_on", "expires_on"),
            ("drawdown_count", "drawdowns"),
        ),
        label="Sort",
    )

    class Meta:
        model = Licence
        fields = ["q"]

    def search(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(
            Q(number__icontains=value)
            | Q(eccns__icontains=value)
            | Q(destination_countries__icontains=value)
            | Q(licensee__legal_name__icontains=value)
            | Q(consignee__legal_name__icontains=value)
        )
